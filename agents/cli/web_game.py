"""One browser game of ``mamma-mia serve``: a ``Game`` and the JSON its page receives.

The page gets ``WebGame.page()`` and nothing else: the person's view (``Game.view``), its
SVG, the person's legal moves on the person's turn and every move so far, in the
terminal game's words, and the status, hand and winners lines worded here (the page's
script words nothing the game decides). No other hand, no seed and no agent's legal
moves ever go into it (``tests/cli/test_serve.py`` checks the JSON against the real
state).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from mamma_mia_agents.cli.session import Game, fresh_seed
from mamma_mia_env.game.cards import INGREDIENTS
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.log import final_result
from mamma_mia_env.game.record import REVEAL
from mamma_mia_env.render.svg import KIND_COLOURS, table_svg
from mamma_mia_env.render.text import counts_text, result_lines, reveal_choice_text
from mamma_mia_env.render.view import seat_label


class FormError(ValueError):
    """A new-game form the server refuses; the message names the field."""


class MoveError(ValueError):
    """A move the game cannot take now (not legal, not this seat's turn, no undo)."""


class WebGame:
    """A ``Game`` and a lock: the server handles requests in threads, one request per
    game at a time."""

    def __init__(self, game: Game) -> None:
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.game = game

    # -- moves -----------------------------------------------------------------------
    def person_to_move(self) -> bool:
        return not self.game.over() and int(self.game.rec["seat"]) == self.game.seat

    def act(self, action: Any) -> None:
        """The person's move ``action`` (an index of the action space), if legal now."""
        if not self.person_to_move():
            raise MoveError("it is not your turn: advance the agents' moves first")
        if not self.game.is_legal(action):
            raise MoveError(f"action {action!r} is not one of your legal moves now")
        self.game.apply(int(action))

    def step(self) -> None:
        """One agent's move (the page shows them one by one)."""
        if self.game.over():
            raise MoveError("the game is over")
        if self.person_to_move():
            raise MoveError("it is your turn, not an agent's")
        self.game.apply(self.game.bot_action())

    def undo(self) -> None:
        """Back to the person's previous decision (``Game.undo``: the agents' later
        moves are undone with it)."""
        if not self.game.undo():
            raise MoveError("nothing to undo: you have not moved yet")

    def moves(self) -> list[dict[str, Any]]:
        """Every move so far in the terminal game's words (``Game.step_lines``), so a
        reloaded page or a resumed game shows its whole move list."""
        out = []
        for i, step in enumerate(self.game.steps):
            head, *rest = self.game.step_lines(step)
            out.append({"n": i, "seat": step.seat, "text": head, "reveal": rest})
        return out

    # -- what the page receives ------------------------------------------------------
    def page(self, game_id: str) -> dict[str, Any]:
        """The JSON the page receives: the person's view and moves, nothing hidden."""
        g = self.game
        view = g.view()
        over = g.over()
        names = g.seat_names()
        status = "over" if over else ("you" if self.person_to_move() else "agent")
        return {
            "id": game_id,
            "seat": g.seat,
            "names": names,
            "ingredients": list(INGREDIENTS),
            "colours": list(KIND_COLOURS),
            "view": view,
            "svg": table_svg(view),
            "status": status,
            "status_line": _status_line(view, g.seat, status, names),
            "hand": _hand_line(view["seats"][g.seat]),
            "can_undo": g.can_undo(),
            "moves": self.moves(),
            "question": self._question() if self.person_to_move() else None,
            "result": _result(g, names) if over else None,
        }

    def _question(self) -> dict[str, Any]:
        g = self.game
        if g.rec["phase"] == REVEAL:  # each choice worded as the terminal game words it
            choices = g.reveal_choices()
            options = [{"action": c["action"], "label": reveal_choice_text(c)} for c in choices]
            return {"kind": "reveal", "order": choices[0]["order"], "options": options}
        return {"kind": "turn", "options": g.turn_options()}


def _status_line(view: dict[str, Any], seat: int, status: str, names: list[str]) -> str:
    """The line above the table: the person's seat, the round and whose move it is."""
    doing = {"you": "your move", "over": "game over"}.get(status)
    doing = doing or f"{seat_label(view['to_act'], names)} is moving…"
    return f"You are seat {seat} ({INGREDIENTS[seat]}) · round {view['round']}/3 · {doing}"


def _hand_line(own: dict[str, Any]) -> str:
    """The person's hand and orders in words (the table draws counts)."""
    cards = counts_text(own["hand"]) if own["hand"] else "no ingredient cards"
    return f"Your hand: {cards}. Your orders: {'; '.join(own['orders']) or 'none'}."


def _result(game: Game, names: list[str]) -> dict[str, Any]:
    """The end: delivered orders per seat, the tie-break counts the rules make public
    at the end, and the winners ("you" for the person)."""
    res = final_result(game.state)
    labels = [seat_label(s, names, game.seat) for s in range(game.config.num_players)]
    return {
        "delivered": res["delivered"],
        "cards_in_hand": res["ingredient_cards_in_hand"],
        "winners": res["winners"],
        "winners_line": result_lines(res, labels)[1],
    }


def new_game(s: dict[str, Any], body: dict[str, Any]) -> Game:
    """A new game from the form: players, the agents (named among the offered ones:
    the browser never names code to load) and the seat, each checked."""
    n = body.get("players", s["players"])
    if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 5:
        raise FormError(f"field 'players' must be 2-5, got {str(n)[:40]}")
    seat = body.get("seat", s["seat"])
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
        raise FormError(f"field 'seat' must be 0-{n - 1}, got {str(seat)[:40]}")
    specs = body.get("agents", s["agents"])
    if not (isinstance(specs, list) and 1 <= len(specs) <= 4):
        raise FormError("field 'agents' must be a list of 1-4 agent names")
    for spec in specs:
        if spec not in s["choices"]:
            raise FormError(
                f"field 'agents': {str(spec)[:40]!r} is not offered here "
                f"({', '.join(s['choices'])})",
            )
    seed = fresh_seed() if s["seed"] is None else s["seed"]
    try:
        config = Config.from_kwargs(num_players=n, **s["config"])
        return Game(config, seat, list(specs), seed, [])
    except ValueError as exc:  # ConfigError and AgentLoadError among them
        raise FormError(str(exc)[:300]) from None
