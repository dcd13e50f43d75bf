"""Text rendering of the table seen from one seat (the ``ansi`` render mode).

Draws a view of ``render.view.table_view``: what the seat may see is decided there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mamma_mia_env.game.actions import RevealAction, TurnAction
from mamma_mia_env.game.cards import INGREDIENTS, order_name
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.observe import remembers
from mamma_mia_env.render.view import seat_label, table_view


def counts_text(counts: list[list[int]]) -> str:
    """A view's ``[kind, singles, doubles]`` rows in words: "3 salami, 1 double olive"."""
    parts = []
    for k, s, d in counts:
        if s:
            parts.append(f"{s} {INGREDIENTS[k]}")
        if d:
            parts.append(f"{d} double {INGREDIENTS[k]}")
    return ", ".join(parts) if parts else "-"


def _oven_entry(entry: dict[str, Any]) -> str:
    if "order" in entry:
        return f"seat {entry['seat']}: order [{entry['order']}]"
    return f"seat {entry['seat']}: {cards_text(INGREDIENTS[entry['kind']], entry['s'], entry['d'])}"


def _oven_lines(view: dict[str, Any]) -> list[str]:
    oven, oven_len = view["oven"], view["oven_len"]
    if view["oven_mode"] == "reveal":
        i = view["reveal_pos"]
        return [f"reveal: card {i + 1}/{oven_len} is {_oven_entry(oven[-1])}"]
    if not oven_len:
        return ["oven: empty"]
    if view["oven_mode"] == "history":
        return [f"oven ({oven_len} plays, first to last):"] + [f"  {_oven_entry(e)}" for e in oven]
    return [f"oven top card: {_oven_entry(oven[-1])}"]


def render_table(rec: np.void, viewer: int, num_players: int, history: bool = True) -> str:
    """The public table plus ``viewer``'s own hand; hidden cards are never shown."""
    view = table_view(rec, num_players, viewer, history)
    mm = view["mm_holder"]
    lines = [
        f"Mamma Mia! round {view['round']}/3, {view['phase']}, seat {view['to_act']} to act"
        f" (view of seat {viewer})",
        f"supply: {view['supply']} cards   "
        f"Mamma Mia! card: " + (f"seat {mm}" if mm >= 0 else "in the supply"),
        f"face-up piles: {counts_text(view['piles'])}",
        *_oven_lines(view),
    ]
    for seat in view["seats"]:
        delivered = seat["delivered"]
        lines.append(
            f"seat {seat['seat']} ({seat['personal']}): hand {seat['hand_size']} "
            f"({seat['orders_in_hand']} orders), stack {seat['stack']}, "
            f"delivered {len(delivered)}" + (f" [{'; '.join(delivered)}]" if delivered else "")
        )
    own = view["seats"][viewer]
    orders = [f"{t}: {name}" for t, name in zip(own["order_types"], own["orders"], strict=True)]
    lines.append(
        f"your hand (seat {viewer}): {counts_text(own['hand'])}; orders: {'; '.join(orders) or '-'}"
    )
    return "\n".join(lines)


def render_seat(rec: np.void, seat: int, config: Config, mode: str) -> str | np.ndarray:
    """Game ``rec`` as ``seat`` sees it, the envs' renders: a ``(720, 960, 3)`` picture
    (``"rgb_array"``, ``render.image``) or the text of ``render_table``."""
    history = remembers(config.observation_mode)
    if mode == "rgb_array":
        from mamma_mia_env.render.image import table_image  # Pillow: only when drawn

        return table_image(table_view(rec, config.num_players, seat, history))
    return render_table(rec, seat, config.num_players, history=history)


_CHOSEN = {"auto": " (automatic policy)", "forced": " (no choice)"}


def _card_counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{c} {k}" for k, c in counts.items())


def result_lines(result: dict[str, Any], labels: Sequence[str]) -> list[str]:
    """A finished game's end in words, the same in the terminal game, the browser game
    and replays: the orders each seat delivered, then who won (``labels``: each seat's
    name, e.g. ``seat_label``'s), with the tie-break count when the winners were decided
    by it. ``result`` is ``game.log.final_result``'s."""
    n = len(labels)
    delivered, cards = result["delivered"][:n], result["ingredient_cards_in_hand"][:n]
    won = " and ".join(labels[s] for s in result["winners"]) or "nobody"
    if delivered.count(max(delivered)) > 1:  # the tie-break: ingredient cards in hand
        counts = ", ".join(f"{labels[s]} {c}" for s, c in enumerate(cards))
        won += f" (a tie on orders goes to the most ingredient cards in hand: {counts})"
    scores = ", ".join(f"{labels[s]} {d}" for s, d in enumerate(delivered))
    return [f"Game over. Delivered orders: {scores}.", f"Won by {won}."]


def _owner(seat: int, names: Sequence[str] | None, you: int | None) -> str:
    """Whose order: "seat 2's", "builder (seat 1)'s" or "your"."""
    return "your" if you is not None and seat == you else f"{seat_label(seat, names)}'s"


def reveal_lines(
    outcomes: list[dict[str, Any]],
    cards_taken: dict[str, int] | None = None,
    names: Sequence[str] | None = None,
    you: int | None = None,
) -> list[str]:
    """One line per order a step turned over (the event log's ``reveal`` entries): whose
    order, delivered or failed (and as which ingredient), who chose, the cards it took
    from the piles and from hand; then the step's total when several were delivered.
    The one wording of a reveal, for the terminal game and the replays alike; ``names``
    (one per seat) calls each owner by its agent's name, ``you`` (the person's seat)
    says "your"."""
    lines = []
    for o in outcomes:
        how = "delivered" if o["delivered"] else "failed"
        if "kind" in o and o["delivered"]:
            how += f" as {o['kind']}"
        who = _CHOSEN.get(o.get("by", ""), "")
        extra = ""
        if o.get("from_piles"):
            extra += f", took {_card_counts(o['from_piles'])} from the piles"
        if o.get("from_hand"):
            extra += f", added {_card_counts(o['from_hand'])} from hand"
        lines.append(f"  reveal: {_owner(o['seat'], names, you)} {o['order']}: {how}{who}{extra}")
    if cards_taken and sum(o["delivered"] for o in outcomes) > 1:
        lines.append(f"  cards taken by this step's deliveries: {_card_counts(cards_taken)}")
    return lines


def cards_text(kind: str, singles: int, doubles: int) -> str:
    """Cards of one ingredient by name: "3 pepper + 1 double pepper"."""
    parts = [f"{singles} {kind}"] if singles else []
    return " + ".join(parts + ([f"{doubles} double {kind}"] if doubles else []))


def move_text(act: TurnAction | RevealAction, who: str, personal: int | None = None) -> str:
    """One move in words, the one wording of moves for the terminal game, the browser
    game and the replays: "builder (seat 1): played 1 pepper, an order card, drew from
    the supply"; "you decided: deliver as pepper". ``who``: the actor as
    ``seat_label`` calls it. ``personal``: the actor's personal ingredient (its seat),
    to name the order card it played; ``None`` says "an order card" (the games name
    only the person's own, as the table beside them shows the oven)."""
    if isinstance(act, RevealAction):
        return f"{who} decided: " + (act.choice if act.kind is None else f"deliver as {act.kind}")
    play = "passed"
    if act.kind is not None:
        play = "played " + cards_text(act.kind, act.singles, act.doubles)
    if act.order is not None:
        name = None if personal is None else order_name(act.order, personal)
        play += ", an order card" if name is None else f", order [{name}]"
    draw = ", drew from the supply" if act.draw == "supply" else ", took their order stack"
    return f"{who}: {play}{draw}"


def reveal_choice_text(choice: dict[str, Any]) -> str:
    """What one choice of a reveal decision will do (``session.Game.reveal_choices``):
    which hand cards a delivery adds, what the piles give, or where a declined order
    goes. The wording the terminal and the browser game show next to the choice."""
    if choice["choice"] == "decline":
        return "decline: the order goes to the bottom of your order stack, no card moves"
    head = "deliver"
    if choice["kind"] is not None:  # Monotoni's J, Minimale's ?
        head += f" with {choice['kind']} as " + ("?" if "Minimale" in choice["order"] else "J")
    hand, piles = choice["from_hand"], choice["from_piles"]
    text = f"{head}: add {_card_counts(hand)} from your hand" if hand else f"{head}: no hand card"
    return text + (f" (the piles give {_card_counts(piles)})" if piles else "")
