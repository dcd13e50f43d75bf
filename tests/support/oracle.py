"""A deliberately plain reference implementation ("oracle") of the card game Mamma Mia!

Why this file exists: the fast engine in ``mamma_mia_env/`` is optimised and therefore
easy to get subtly wrong. This oracle is written independently, from ``docs/SPEC.md``
and the rule texts alone (it never imports or reads the engine's rule code; it reads
only the game parameters' names and defaults from their declarations in
``mamma_mia_env.game.config``), in the most obvious
way possible: plain lists and integers, one step at a time. The differential tests play
the same seeds and actions through both and compare :meth:`OracleGame.snapshot` with the
engine's state, so any disagreement points at a bug in one of the two.

Conventions (all from SPEC.md):

* ingredients 0..4 = salami, mushroom, pineapple, pepper, olive; seat ``s`` has
  personal ingredient ``s``;
* card types 0..4 are singles, 5..9 doubles (``double_ingredients`` only), 10 is the
  Mamma Mia! card;
* every pile is a list whose index 0 is its top;
* order types 0..3 = 4 x others(P)[t] + 1 x P, 4 = one of each, 5 = Bombastica,
  6 = Monotoni, 7 = Minimale.

Its rules use the standard library only, so that they cannot share a bug with a
numerical dependency.
"""

from __future__ import annotations

from mamma_mia_env.game.config import PARAMETERS

MASK64 = (1 << 64) - 1

NUM_INGREDIENTS = 5
NUM_CARD_TYPES = 10
MAMMA_MIA = 10
NUM_ORDER_TYPES = 8
HAND_LIMIT = 7
START_HAND = 6
CARDS_PER_INGREDIENT = 13
BOMBASTICA_MIN = 15
NUM_ROUNDS = 3
REMOVED_PER_INGREDIENT = {2: 5, 3: 3, 4: 1, 5: 0}

ORDER_BOMBASTICA = 5
ORDER_MONOTONI = 6
ORDER_MINIMALE = 7

# The rules' parameters and their defaults, read from their declarations (the oracle's
# rule code below is its own; the observation and reward modes are not rules).
DEFAULT_CONFIG: dict = {p.name: p.default for p in PARAMETERS if p.kind != "option"}


def splitmix64_next(state: int) -> tuple[int, int]:
    """Advance a SplitMix64 state once; return ``(new_state, output)``.

    A free function (rather than hidden inside the game) so the tests can check it
    against the published reference values on its own.
    """
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def build_play_table(double_ingredients: bool) -> list[tuple[int, int, int] | None]:
    """Return the play table: index 0 is the pass (None), then ``(k, singles, doubles)``.

    Built exactly in SPEC order (ingredient, then doubles, then singles) so that play
    numbers agree with the engine's action encoding.
    """
    table: list[tuple[int, int, int] | None] = [None]
    max_doubles = 2 if double_ingredients else 0
    for k in range(NUM_INGREDIENTS):
        for d in range(max_doubles + 1):
            first = 1 if d == 0 else 0
            for s in range(first, HAND_LIMIT - d + 1):
                table.append((k, s, d))
    return table


def others(personal: int) -> list[int]:
    """The four ingredients other than ``personal``, in increasing index (SPEC)."""
    return [k for k in range(NUM_INGREDIENTS) if k != personal]


class OracleGame:
    """One game of Mamma Mia!, advanced one decision at a time.

    The public surface mirrors what the differential test needs: the legal actions,
    :meth:`apply`, and a canonical :meth:`snapshot` of the whole state.
    """

    # ------------------------------------------------------------------ set-up

    def __init__(self, config: dict | None = None, seed: int = 0) -> None:
        self._init_static(config)
        if not isinstance(seed, int) or not 0 <= seed <= MASK64:
            raise ValueError(f"seed must be an integer in [0, 2^64), got {seed!r}")
        self._rng_state = seed
        self._init_empty()
        self._setup()

    def _init_static(self, config: dict | None) -> None:
        """Validate the config and derive the action numbering from it."""
        cfg = dict(DEFAULT_CONFIG)
        for key, value in (config or {}).items():
            if key not in DEFAULT_CONFIG:
                raise ValueError(f"unknown config key {key!r}")
            cfg[key] = value
        if cfg["num_players"] not in REMOVED_PER_INGREDIENT:
            raise ValueError("num_players must be 2..5")
        self.config = cfg
        self.num_players: int = cfg["num_players"]
        self._plays = build_play_table(bool(cfg["double_ingredients"]))
        self.n_play: int = len(self._plays)
        self.n_turn: int = self.n_play * 18
        self.n_actions: int = self.n_turn + 7
        self.DECLINE: int = self.n_turn
        self.DELIVER: int = self.n_turn + 1

    def _init_empty(self) -> None:
        """Put every field into an empty, consistent state (used by set-up and scenarios)."""
        n = self.num_players
        self._round = 0
        self._phase = "play"
        self._seat = 0
        self._hands = [[0] * NUM_CARD_TYPES for _ in range(n)]
        self._orders = [[] for _ in range(n)]
        self._stacks = [[] for _ in range(n)]
        self._delivered = [[] for _ in range(n)]
        self._supply: list[int] = []
        self._piles = [0] * NUM_CARD_TYPES
        self._used = [0] * NUM_CARD_TYPES
        self._oven: list[tuple] = []
        self._reveal_next = 0  # index of the next oven entry to reveal
        self._pending = -1  # index of the order awaiting its owner's decision
        self._holder = -1
        self._turns = 0
        self._idle = 0
        self._last_seat = -1  # seat that took the latest play turn
        self._truncated = False

    def _setup(self) -> None:
        """SPEC 'Set-up', steps 1-7, consuming the generator in exactly that order."""
        cfg = self.config
        n = self.num_players
        per_ingredient = CARDS_PER_INGREDIENT - REMOVED_PER_INGREDIENT[n]
        n_doubles = 2 if cfg["double_ingredients"] else 0
        # 1. canonical deck
        deck: list[int] = []
        for k in range(NUM_INGREDIENTS):
            deck += [k] * (per_ingredient - n_doubles)
            deck += [NUM_INGREDIENTS + k] * n_doubles
        if cfg["mamma_mia_in_deal"]:
            deck.append(MAMMA_MIA)
        # 2. shuffle
        self._shuffle(deck)
        # 3. deal six ingredient cards to each seat, from the top
        for seat in range(n):
            dealt = 0
            while dealt < START_HAND:
                card = deck.pop(0)
                if card == MAMMA_MIA:
                    self._holder = seat  # face up, and deal a replacement
                    continue
                self._hands[seat][card] += 1
                dealt += 1
        # 4. the rest is the supply
        self._supply = deck
        if not cfg["mamma_mia_in_deal"]:
            self._supply.append(MAMMA_MIA)
            self._shuffle(self._supply)
        # 5. order stacks
        for seat in range(n):
            stack = list(range(NUM_ORDER_TYPES))
            self._shuffle(stack)
            self._stacks[seat] = stack
        # 6. start player
        self._seat = self._below(n) if cfg["random_start_player"] else 0
        # 7. each seat takes the top order into its hand
        for seat in range(n):
            self._orders[seat].append(self._stacks[seat].pop(0))
        max_turns = cfg["max_turns"]
        if max_turns is not None and self._turns >= max_turns:
            self._truncate()

    # ------------------------------------------------------------- random numbers

    def _next(self) -> int:
        self._rng_state, out = splitmix64_next(self._rng_state)
        return out

    def _below(self, n: int) -> int:
        return self._next() % n

    def _shuffle(self, items: list) -> None:
        """Fisher-Yates from the end, exactly as SPEC writes it."""
        for i in range(len(items) - 1, 0, -1):
            j = self._below(i + 1)
            items[i], items[j] = items[j], items[i]

    # ------------------------------------------------------------ public queries

    def current_player(self) -> int | None:
        """Seat to act: the turn's seat, the order owner during a reveal, None when over."""
        if self._phase == "over":
            return None
        if self._phase == "reveal":
            return self._oven[self._pending][0]
        return self._seat

    def phase(self) -> str:
        """'play', 'reveal' (a reveal decision is pending) or 'over'."""
        return self._phase

    def is_over(self) -> bool:
        """True once the game ended normally or was truncated."""
        return self._phase == "over"

    def truncated(self) -> bool:
        """True if the turn cap stopped the game before its end."""
        return self._truncated

    def scores(self) -> list[int]:
        """Delivered orders per seat (the score of the rules)."""
        return [len(d) for d in self._delivered]

    def winners(self) -> list[int]:
        """Winning seats after the tie-break on ingredient *cards* in hand.

        Empty unless the game ended normally: a truncated game has no result.
        """
        if self._phase != "over" or self._truncated:
            return []
        scores = self.scores()
        best = max(scores)
        tied = [s for s in range(self.num_players) if scores[s] == best]
        cards = {s: sum(self._hands[s]) for s in tied}
        most = max(cards.values())
        return [s for s in tied if cards[s] == most]

    def legal_actions(self) -> list[int]:
        """All legal action codes, ascending (empty when the game is over)."""
        if self._phase == "over":
            return []
        if self._phase == "reveal":
            owner, _, t = self._oven[self._pending]
            legal, _ = self._reveal_choices(owner, t)
            return legal
        return self._legal_turn_actions()

    def decode(self, action: int) -> tuple[int, int, int]:
        """Split a turn action into ``(play, order, draw)`` (SPEC encoding)."""
        return action // 18, (action // 2) % 9, action % 2

    def encode(self, play: int, order: int, draw: int) -> int:
        """Inverse of :meth:`decode`, handy for writing scenarios readably."""
        return (play * 9 + order) * 2 + draw

    def play_index(self, k: int, singles: int, doubles: int = 0) -> int:
        """Play-table number of 'singles and doubles of ingredient k'."""
        return self._plays.index((k, singles, doubles))

    # ------------------------------------------------------------------ the turn

    def _hand_size(self, seat: int) -> int:
        return sum(self._hands[seat]) + len(self._orders[seat])

    def _legal_turn_actions(self) -> list[int]:
        seat = self._seat
        hand = self._hands[seat]
        size = self._hand_size(seat)
        stack_empty = not self._stacks[seat]
        if any(hand):
            plays = []
            for p in range(1, self.n_play):
                k, s, d = self._plays[p]
                if hand[k] >= s and hand[NUM_INGREDIENTS + k] >= d:
                    plays.append(p)
        else:
            plays = [0]
        actions = []
        for p in plays:
            played = 0 if p == 0 else sum(self._plays[p][1:])
            order_choices = [0]
            if p != 0 or self.config["pass_may_play_order"]:
                order_choices += [1 + t for t in self._orders[seat]]
            for o in order_choices:
                short = HAND_LIMIT - (size - played - (1 if o else 0))
                draws = [0]
                if short > 0 and not stack_empty:
                    draws.append(1)
                for dr in draws:
                    actions.append(self.encode(p, o, dr))
        return sorted(actions)

    def apply(self, action: int) -> list[tuple[int, int]]:
        """Apply one decision; return the (seat, order type) pairs delivered meanwhile.

        A turn that ends the round's play runs the reveal on until the next owner
        decision or the end of the round (or game), so one call may deliver many orders.
        """
        if not isinstance(action, int) or action not in self.legal_actions():
            raise ValueError(f"illegal action {action!r} in phase {self._phase}")
        delivered: list[tuple[int, int]] = []
        if self._phase == "reveal":
            self._resolve(self._pending, action, delivered)
            self._reveal_next = self._pending + 1
            self._pending = -1
            self._run_reveal(delivered)
        else:
            self._apply_turn(action, delivered)
        return delivered

    def _apply_turn(self, action: int, delivered: list[tuple[int, int]]) -> None:
        """SPEC 'The turn': play, order, draw, then the end-of-play checks."""
        seat = self._seat
        hand = self._hands[seat]
        play, order, draw = self.decode(action)
        moved = False
        # 1. the play, then the order, onto the oven
        if play != 0:
            k, s, d = self._plays[play]
            hand[k] -= s
            hand[NUM_INGREDIENTS + k] -= d
            self._oven.append((seat, "ing", k, s, d))
            moved = True
        if order != 0:
            t = order - 1
            self._orders[seat].remove(t)
            self._oven.append((seat, "order", t))
            moved = True
        # 2. draw up to seven from one pile
        short = HAND_LIMIT - self._hand_size(seat)
        if short > 0 and draw == 1:
            stack = self._stacks[seat]
            while short > 0 and stack:
                self._orders[seat].append(stack.pop(0))
                short -= 1
                moved = True
        elif short > 0:
            while short > 0 and self._supply:
                card = self._supply.pop(0)
                moved = True
                if card == MAMMA_MIA:
                    self._holder = seat  # face up; it does not count, draw on
                    continue
                hand[card] += 1
                short -= 1
        # 3. bookkeeping and the end of play
        self._turns += 1
        self._idle = 0 if moved else self._idle + 1
        self._last_seat = seat
        max_turns = self.config["max_turns"]
        if max_turns is not None and self._turns >= max_turns:
            self._truncate()
            return
        guard_hit = self.config["idle_cycle_guard"] and self._idle >= self.num_players
        if not self._supply or guard_hit:
            self._start_reveal(delivered)
            return
        # 4. next seat
        self._seat = (seat + 1) % self.num_players

    def _truncate(self) -> None:
        self._truncated = True
        self._phase = "over"

    # ---------------------------------------------------------------- the reveal

    def begin_reveal(self) -> list[tuple[int, int]]:
        """End the round's play now and reveal the oven from its first entry.

        For scenario tests: build a state with :meth:`from_snapshot` in phase 'play'
        (oven, piles and hands as the scenario needs), then call this instead of
        playing the turn that would empty the supply.
        """
        if self._phase != "play":
            raise ValueError("begin_reveal needs phase 'play'")
        delivered: list[tuple[int, int]] = []
        self._start_reveal(delivered)
        return delivered

    def _start_reveal(self, delivered: list[tuple[int, int]]) -> None:
        self._phase = "reveal"
        self._reveal_next = 0
        self._pending = -1
        self._run_reveal(delivered)

    def _run_reveal(self, delivered: list[tuple[int, int]]) -> None:
        """Reveal entries until an owner must decide, then stop; else end the round."""
        while self._reveal_next < len(self._oven):
            index = self._reveal_next
            entry = self._oven[index]
            if entry[1] == "ing":
                _, _, k, s, d = entry
                self._piles[k] += s
                self._piles[NUM_INGREDIENTS + k] += d
                self._reveal_next += 1
                continue
            owner, _, t = entry
            legal, needs = self._reveal_choices(owner, t)
            if len(legal) == 1:
                action = legal[0]
            elif self.config["auto_reveal"]:
                action = self._auto_choice(owner, legal, needs)
            else:
                self._pending = index
                return  # the owner's agent decides
            self._resolve(index, action, delivered)
            self._reveal_next += 1
        self._end_round()

    def _pile_values(self) -> list[int]:
        p = self._piles
        return [p[k] + 2 * p[NUM_INGREDIENTS + k] for k in range(NUM_INGREDIENTS)]

    def _hand_values(self, seat: int) -> list[int]:
        h = self._hands[seat]
        return [h[k] + 2 * h[NUM_INGREDIENTS + k] for k in range(NUM_INGREDIENTS)]

    def _need(self, owner: int, t: int, x: int | None = None) -> list[int]:
        """Value needed per ingredient for order t of owner (x = joker / '?')."""
        need = [0] * NUM_INGREDIENTS
        if t < 4:
            need[others(owner)[t]] = 4
            need[owner] += 1
        elif t == 4:
            need = [1] * NUM_INGREDIENTS
        elif t in (ORDER_MONOTONI, ORDER_MINIMALE):
            need[owner] = 1
            need[x] = 6 if t == ORDER_MONOTONI else 3
        else:
            raise ValueError("Bombastica has no per-ingredient need")
        return need

    def minimale_candidates(self, owner: int) -> list[int]:
        """The ingredients a Minimale of ``owner`` may use, given the face-up piles now."""
        pv = self._pile_values()
        if self.config["strict_minimale"]:
            present = [k for k in range(NUM_INGREDIENTS) if pv[k] >= 1]
            if not present:
                return []
            low = min(pv[k] for k in present)
            return [k for k in present if pv[k] == low and k != owner]
        present = [k for k in range(NUM_INGREDIENTS) if pv[k] >= 1 and k != owner]
        if not present:
            return []
        low = min(pv[k] for k in present)
        return [k for k in present if pv[k] == low]

    def _reveal_choices(self, owner: int, t: int) -> tuple[list[int], dict]:
        """Legal reveal actions for a revealed order, and the need behind each delivery.

        The need is a list of five values, or None for Bombastica.
        """
        pv = self._pile_values()
        hv = self._hand_values(owner)
        if t == ORDER_BOMBASTICA or t <= 4:
            if t == ORDER_BOMBASTICA:
                need = None
                met = sum(pv) >= BOMBASTICA_MIN
                coverable = sum(pv) + sum(hv) >= BOMBASTICA_MIN
            else:
                need = self._need(owner, t)
                met = all(pv[k] >= need[k] for k in range(NUM_INGREDIENTS))
                coverable = all(pv[k] + hv[k] >= need[k] for k in range(NUM_INGREDIENTS))
            if met:
                return [self.DELIVER], {self.DELIVER: need}
            if coverable:
                return [self.DECLINE, self.DELIVER], {self.DELIVER: need}
            return [self.DECLINE], {}
        options = others(owner) if t == ORDER_MONOTONI else self.minimale_candidates(owner)
        legal: list[int] = []
        needs: dict = {}
        some_unmet = False
        for x in options:
            need = self._need(owner, t, x)
            if not all(pv[k] >= need[k] for k in range(NUM_INGREDIENTS)):
                some_unmet = True
            if all(pv[k] + hv[k] >= need[k] for k in range(NUM_INGREDIENTS)):
                action = self.n_turn + 2 + x
                legal.append(action)
                needs[action] = need
        if some_unmet or not legal:
            legal.append(self.DECLINE)  # no candidate at all also means: it fails
        return sorted(legal), needs

    def _auto_choice(self, owner: int, legal: list[int], needs: dict) -> int:
        """SPEC automatic policy: deliver, taking the least value from the hand."""
        deliveries = [a for a in legal if a != self.DECLINE]
        if not deliveries:
            return self.DECLINE
        # action codes grow with the ingredient index, so ties go to the lowest one
        return min(deliveries, key=lambda a: (self._hand_value_taken(owner, needs[a]), a))

    def _hand_value_taken(self, owner: int, need: list[int] | None) -> int:
        """Value of the hand cards a delivery would remove (doubles may overpay)."""
        pv = self._pile_values()
        hand = self._hands[owner]
        if need is None:
            trial = list(hand)
            return self._bombastica_hand_take(trial, BOMBASTICA_MIN - sum(pv), None)
        taken = 0
        for k in range(NUM_INGREDIENTS):
            if pv[k] < need[k]:
                d, s = self._doubles_first(hand[NUM_INGREDIENTS + k], need[k] - pv[k])
                taken += s + 2 * d
        return taken

    @staticmethod
    def _doubles_first(doubles_available: int, need: int) -> tuple[int, int]:
        """(doubles, singles) to take for ``need`` value: doubles first, may overpay."""
        d = min(doubles_available, (need + 1) // 2)
        return d, max(need - 2 * d, 0)

    def _take(self, source: list[int], k: int, need: int) -> None:
        """Move cards worth ``need`` of ingredient k from source to the used stack."""
        d, s = self._doubles_first(source[NUM_INGREDIENTS + k], need)
        source[NUM_INGREDIENTS + k] -= d
        source[k] -= s
        self._used[NUM_INGREDIENTS + k] += d
        self._used[k] += s
        if source[k] < 0 or source[NUM_INGREDIENTS + k] < 0:
            raise AssertionError("took cards that are not there")

    def _bombastica_hand_take(self, hand: list[int], shortfall: int, used: list[int] | None) -> int:
        """Cover a Bombastica shortfall from ``hand`` card by card; return value taken.

        SPEC: every double first (of any ingredient), then singles, never a card more
        than needed; among the kinds holding the sort of card being taken, the one
        with the largest hand value first (ties: the lowest index)."""
        taken = 0
        while shortfall > 0:
            hv = [hand[k] + 2 * hand[NUM_INGREDIENTS + k] for k in range(NUM_INGREDIENTS)]
            doubles = [k for k in range(NUM_INGREDIENTS) if hand[NUM_INGREDIENTS + k]]
            singles = [k for k in range(NUM_INGREDIENTS) if hand[k]]
            if not doubles and not singles:
                raise AssertionError("Bombastica shortfall not coverable")
            kinds, offset = (doubles, NUM_INGREDIENTS) if doubles else (singles, 0)
            card = offset + max(kinds, key=lambda i: (hv[i], -i))
            hand[card] -= 1
            if used is not None:
                used[card] += 1
            value = 2 if card >= NUM_INGREDIENTS else 1
            shortfall -= value
            taken += value
        return taken

    def _resolve(self, index: int, action: int, delivered: list[tuple[int, int]]) -> None:
        """Carry out a reveal action for the order at oven[index]: deliver or fail."""
        owner, _, t = self._oven[index]
        if action == self.DECLINE:
            self._stacks[owner].append(t)  # face down, to the bottom
            return
        pv = self._pile_values()
        hand = self._hands[owner]
        if t == ORDER_BOMBASTICA:
            shortfall = BOMBASTICA_MIN - sum(pv)
            for card in range(NUM_CARD_TYPES):
                self._used[card] += self._piles[card]
                self._piles[card] = 0
            self._bombastica_hand_take(hand, shortfall, self._used)
        else:
            x = None if action == self.DELIVER else action - self.n_turn - 2
            need = self._need(owner, t, x)
            for k in range(NUM_INGREDIENTS):
                if need[k] == 0:
                    continue
                if pv[k] >= need[k]:
                    self._take(self._piles, k, need[k])
                else:
                    for card in (k, NUM_INGREDIENTS + k):
                        self._used[card] += self._piles[card]
                        self._piles[card] = 0
                    self._take(hand, k, need[k] - pv[k])
        self._delivered[owner].append(t)
        delivered.append((owner, t))

    # ------------------------------------------------------------ end of a round

    def _end_round(self) -> None:
        """SPEC 'End of round, end of game'."""
        self._pending = -1
        if self._round == NUM_ROUNDS - 1:
            self._phase = "over"  # oven, used stack and holder stay as they are
            return
        # 1. new supply: used cards, old supply leftovers and the Mamma Mia! card
        cards = list(self._supply)
        for card in range(NUM_CARD_TYPES):
            cards += [card] * self._used[card]
        if self._holder != -1:
            cards.append(MAMMA_MIA)
        if cards.count(MAMMA_MIA) != 1:
            raise AssertionError("the Mamma Mia! card went missing")
        cards.sort()
        self._shuffle(cards)
        self._supply = cards
        self._used = [0] * NUM_CARD_TYPES
        self._oven = []
        self._reveal_next = 0
        # 2. the next round's first seat
        if self._holder != -1:
            self._seat = self._holder
        else:
            self._seat = (self._last_seat + 1) % self.num_players
        self._holder = -1
        self._round += 1
        self._idle = 0  # the guard counts turns within one round's play
        self._phase = "play"

    # ----------------------------------------------------------------- snapshots

    def snapshot(self) -> dict:
        """Canonical plain-data view of the whole state (lists, ints and strings only).

        Canonical means: whatever is unordered in the game is sorted (orders in hand,
        delivered orders), whatever is ordered keeps its order (piles top first, oven in
        play order), so two correct implementations produce equal dicts.
        """
        oven = []
        for entry in self._oven:
            oven.append(list(entry))
        return {
            "round": self._round,
            "phase": self._phase,
            "seat": -1 if self._phase == "over" else self.current_player(),
            "hands": [list(h) for h in self._hands],
            "orders_in_hand": [sorted(o) for o in self._orders],
            "stacks": [list(s) for s in self._stacks],
            "delivered": [sorted(d) for d in self._delivered],
            "supply": list(self._supply),
            "piles": list(self._piles),
            "used": list(self._used),
            "oven": oven,
            "reveal_pos": self._pending if self._phase == "reveal" else -1,
            "mm_holder": self._holder,
            "turns": self._turns,
            "idle": self._idle,
        }

    @property
    def rng_state(self) -> int:
        """The SplitMix64 state; with a snapshot it lets :meth:`from_snapshot` resume."""
        return self._rng_state

    @property
    def last_seat(self) -> int:
        """Seat that took the latest play turn (-1 before the first turn)."""
        return self._last_seat

    @classmethod
    def from_snapshot(
        cls,
        config: dict | None,
        snap: dict,
        rng_state: int = 0,
        last_seat: int | None = None,
        truncated: bool = False,
    ) -> OracleGame:
        """Build a game directly in the state ``snap`` describes (for scenario tests).

        ``snap`` uses the :meth:`snapshot` format; missing keys default to empty
        (round 0, phase 'play', seat 0, no cards anywhere, no holder). In phase
        'reveal', ``reveal_pos`` is the order awaiting a decision and the oven entries
        before it count as already revealed. The generator starts from ``rng_state``;
        ``last_seat`` (default: the seat before ``seat``) only matters when nobody holds
        the Mamma Mia! card at the end of the round. Cards are not checked for
        conservation: a scenario may use any cards it likes.
        """
        game = cls.__new__(cls)
        game._init_static(config)
        game._init_empty()
        game._rng_state = rng_state & MASK64
        n = game.num_players
        game._round = snap.get("round", 0)
        game._phase = snap.get("phase", "play")
        seat = snap.get("seat", 0)
        game._seat = seat if seat >= 0 else 0
        for key, attr in (
            ("hands", "_hands"),
            ("orders_in_hand", "_orders"),
            ("stacks", "_stacks"),
            ("delivered", "_delivered"),
        ):
            if key in snap:
                value = [list(v) for v in snap[key]]
                if len(value) != n:
                    raise ValueError(f"{key} needs one entry per seat")
                setattr(game, attr, value)
        game._supply = list(snap.get("supply", []))
        game._piles = list(snap.get("piles", [0] * NUM_CARD_TYPES))
        game._used = list(snap.get("used", [0] * NUM_CARD_TYPES))
        game._oven = [tuple(e) for e in snap.get("oven", [])]
        game._holder = snap.get("mm_holder", -1)
        game._turns = snap.get("turns", 0)
        game._idle = snap.get("idle", 0)
        game._truncated = truncated
        if game._phase == "reveal":
            pos = snap["reveal_pos"]
            owner, kind, t = game._oven[pos]
            if kind != "order" or len(game._reveal_choices(owner, t)[0]) < 2:
                raise ValueError("reveal_pos must point at an order that needs a decision")
            game._pending = pos
            game._reveal_next = pos
        game._last_seat = (game._seat - 1) % n if last_seat is None else last_seat
        for seat_hand in range(n):
            if game._hand_size(seat_hand) > HAND_LIMIT:
                raise ValueError("a hand may not exceed seven cards")
        return game
