"""The screens' own widgets: a pane of memories per type, the key line, and the review's list of memories to mark."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable, SelectionList
from textual.widgets.option_list import OptionDoesNotExist

from memtui.core.model import Memory
from memtui.tui.render import NAME_WIDTH
from memtui.workspace import Workspace

GROUPS: tuple[tuple[str, str, str], ...] = (
    ("user", "User", "1"),
    ("feedback", "Feedback", "2"),
    ("project", "Project", "3"),
    ("reference", "Reference", "4"),
    ("other", "Other", "5"),
)


_KEYS = {"question_mark": "?", "slash": "/", "escape": "esc"}


class ItemLine(Widget):
    """Items (`1 pairs 7`, `a̲rchive`) on as many lines as they need, broken between items only: an item is never
    split across lines, whatever the width."""

    def __init__(self, items: Sequence[Content] = (), *, separator: str = " ", id: str | None = None) -> None:
        super().__init__(id=id)
        self.items = list(items)
        self.separator = separator

    def show_items(self, items: Sequence[Content]) -> None:
        """Show these items instead."""
        self.items = list(items)
        self.refresh(layout=True)

    def update(self, line: Content | str) -> None:
        """Show a line whose items its separators divide (`pairs 1 / 7 · 36 cards left · hook: installed`), as
        `Static.update` would, broken between items only."""
        self.show_items(Content(line).split(self.separator) if isinstance(line, str) else line.split(self.separator))

    def render(self) -> Content:
        return Content("\n").join(self._lines(self.content_size.width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def _lines(self, width: int) -> list[Content]:
        lines: list[list[Content]] = [[]]
        used = 0
        gap = len(self.separator)
        for item in self.items:
            if lines[-1] and used + gap + item.cell_length > width:
                lines.append([])
                used = 0
            used += item.cell_length + (gap if lines[-1] else 0)
            lines[-1].append(item)
        return [Content(self.separator).join(line) for line in lines]


class KeyLine(ItemLine):
    """The footer of a narrow terminal: every shown key, the key letter marked inside its word (`a̲rchive`,
    `H̲istory`), on as many lines as the keys need, broken between keys only, so no key is lost at 80 columns."""

    def __init__(self, bindings: list[BindingType], *, id: str | None = None) -> None:
        super().__init__(key_items(bindings), id=id)

    def show_keys(self, bindings: list[BindingType]) -> None:
        """Show these keys instead."""
        self.show_items(key_items(bindings))


def key_items(bindings: list[BindingType]) -> list[Content]:
    """`?help`, `/filter`, `archive`, `v approve/verify`, … `^p palette`, each key in the footer's key colour: a key
    that is its word's first letter is marked inside the word, any other letter or name stands before it."""
    parts: list[Content] = []
    for b in bindings:
        if not isinstance(b, Binding) or not b.show:
            continue
        key = _key_name(b)
        word = b.description.lower()
        if len(key) == 1 and word[:1] == key.lower():
            parts.append(Content.assemble(_key(key), word[1:]))
        elif key.isalnum():
            parts.append(Content.assemble(_key(key), " " + word))
        else:
            parts.append(Content.assemble(_key(key), word))
    parts.append(Content.assemble(_key("^p"), " palette"))
    return parts


def footer_width(bindings: list[BindingType]) -> int:
    """Columns a compact footer needs to show these keys and the palette's (`key description` each, no gaps)."""
    shown = [b for b in bindings if isinstance(b, Binding) and b.show]
    return len("▏^p palette") + sum(len(_key_name(b)) + 1 + len(b.description) for b in shown)


def _key_name(binding: Binding) -> str:
    """The key as the footer names it: the first of its keys, `?` for question_mark, `esc` for escape."""
    first = binding.key.split(",")[0]
    return _KEYS.get(first, first)


def _key(key: str) -> Content:
    return Content.from_markup("[bold $footer-key-foreground]$key[/]", key=key)


class MarkList(SelectionList[str]):
    """A selection list whose unmarked rows show an empty box: Textual's own draws `X` in both states and tells them
    apart by colour alone, which a monochrome terminal, NO_COLOR or a colour-blind reader cannot see."""

    def render_line(self, y: int) -> Strip:
        """The row as Textual draws it, the box emptied when its memory is not marked."""
        strip = super().render_line(y)
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)
        if option.value in self.selected or len(segments) < 2:
            return strip
        inner = segments[1]
        segments[1] = inner._replace(text=" " * len(inner.text))
        return Strip(segments, strip.cell_length)


class MemoryPane(DataTable[Content]):
    """One type's memories: a row each with its freshness badge, finding flags and name."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_top", "Top", show=False),
        Binding("G", "scroll_bottom", "Bottom", show=False),
    ]

    class Mounted(Message):
        """A pane is on its screen: the screen may draw a store read that landed before all its panes were."""

    def __init__(self, group: str, label: str, digit: str) -> None:
        super().__init__(
            cursor_type="row", show_header=False, zebra_stripes=False, id=f"pane-{group}", classes="memory-pane"
        )
        self.group = group
        self.label = label
        self.digit = digit
        self.total = 0
        self.description_width = 0
        """Columns for the description (0: a narrow terminal, where the row is badge, flags and name only)."""
        self.name_width = NAME_WIDTH
        """Columns for the name when the description shows."""
        self._shown: object = None
        """What the last fill drew (keys, text and styles of every cell, the total), to skip a fill that
        would draw the same (a re-read of an unchanged store repaints nothing)."""

    def on_mount(self) -> None:
        self._ensure_columns()
        if self._shown is None:
            self.set_title(0, 0)
        self.post_message(self.Mounted())

    def _ensure_columns(self) -> None:
        # a store read can finish before this pane has handled its own Mount (each widget has its own queue, and a
        # busy machine delays it): whichever comes first adds the columns
        if not self.columns:
            self._add_columns()

    def _add_columns(self) -> None:
        self.add_column("badge", width=8, key="badge")
        self.add_column("flags", width=6, key="flags")
        if self.description_width:
            self.add_column("name", width=self.name_width, key="name")
            self.add_column("age", width=5, key="age")
            self.add_column("description", width=self.description_width, key="description")
        else:
            self.add_column("name", width=120, key="name")

    def set_widths(self, name: int, description: int) -> bool:
        """Show (description > 0) or hide the age and description columns; True when the columns changed."""
        if (name, description) == (self.name_width, self.description_width):
            return False
        self.name_width, self.description_width = name, description
        self.clear(columns=True)
        self._shown = None
        self._add_columns()
        return True

    def set_title(self, shown: int, total: int) -> None:
        """`Feedback (23) [2]`, with `12/23` when a filter hides some."""
        count = f"{shown}/{total}" if shown != total else f"{total}"
        self.border_title = f"[{self.digit}] {self.label} ({count})"

    FIRST_ROWS = 200
    """Rows added before the first paint; the rest follow right after, so big stores show at once."""

    def fill(
        self, rows: list[tuple[str, tuple[Content, ...]]], total: int, keep: str | None, at: int | None = None
    ) -> None:
        """Replace the rows, keeping the cursor on `keep` when it is still there, else on row `at` (the memory now in
        its place, or the last) or the first (nothing, when the rows are the same)."""
        shown = (total, [(key, [(c.plain, tuple(c.spans)) for c in cells]) for key, cells in rows])
        if shown == self._shown:
            return
        self._shown = shown
        self._ensure_columns()
        self.clear()
        self._generation = getattr(self, "_generation", 0) + 1
        for key, cells in rows[: self.FIRST_ROWS]:
            self.add_row(*cells, key=key)
        self.set_title(len(rows), total)
        self.total = total
        if len(rows) > self.FIRST_ROWS:
            self.call_after_refresh(self._add_rest, rows[self.FIRST_ROWS :], keep, at, self._generation)
        else:
            self._restore(keep, at)

    BATCH_ROWS = 400
    """Rows added per frame after the first paint, so a key press never waits behind a big fill."""

    def _add_rest(
        self, rows: list[tuple[str, tuple[Content, ...]]], keep: str | None, at: int | None, generation: int
    ) -> None:
        if generation != self._generation:
            return  # a newer fill replaced these rows
        for key, cells in rows[: self.BATCH_ROWS]:
            self.add_row(*cells, key=key)
        if len(rows) > self.BATCH_ROWS:
            self.call_after_refresh(self._add_rest, rows[self.BATCH_ROWS :], keep, at, generation)
        else:
            self._restore(keep, at)

    def _restore(self, keep: str | None, at: int | None) -> None:
        row = None
        if keep is not None:
            try:
                row = self.get_row_index(keep)
            except Exception:  # the memory left this pane (archived, filtered out)
                row = None if at is None else min(at, self.row_count - 1)
        if row is not None and row >= 0:
            self.move_cursor(row=row, animate=False)
        self.update_subtitle()

    def update_subtitle(self) -> None:
        """`5 / 23`: where the cursor is."""
        self.border_subtitle = f"{self.cursor_row + 1} / {self.row_count}" if self.row_count else ""

    def selected_key(self) -> str | None:
        """The path of the memory under the cursor."""
        if not self.row_count:
            return None
        try:
            return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
        except Exception:
            return None


def _by_name(memory: Memory) -> tuple[str, str]:
    return (memory.title.casefold(), memory.path)


_BADGE_RANK = {"expired": 0, "stale": 1, "aging": 2, "undated": 3, "unknown": 3, "fresh": 4, "standing": 5}


def sorter(sort: str, ws: Workspace) -> Callable[[Memory], tuple[object, ...]]:
    """The pane order for one of MainScreen.SORTS; ties fall back to the name."""

    def age(m: Memory) -> int:
        fresh = ws.freshness.get(m.path)
        return (fresh.age_days or 0) if fresh else 0

    def badge(m: Memory) -> int:
        fresh = ws.freshness.get(m.path)
        return _BADGE_RANK.get(fresh.badge if fresh else "unknown", 3)

    if sort == "age":
        return lambda m: (-age(m), *_by_name(m))
    if sort == "freshness":
        return lambda m: (badge(m), -age(m), *_by_name(m))
    if sort == "findings":
        return lambda m: (-len(ws.findings_for(m.path)), *_by_name(m))
    return _by_name
