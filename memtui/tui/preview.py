"""The main screen's preview: the selected memory's fields, text, findings and its history of decisions."""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static

from memtui.analysis.secrets import redacted
from memtui.audit.history import undone_commits
from memtui.core import frontmatter
from memtui.core.freshness import age_text
from memtui.core.model import Memory
from memtui.tui import render
from memtui.tui.messages import ThreadSaid
from memtui.workspace import Workspace


class Preview(VerticalScroll):
    """One memory in full; `show` redraws it (a newer call cancels an older one, so fast scrolling renders once)."""

    def __init__(self) -> None:
        super().__init__(id="preview", can_focus=True)
        self._body_shown: tuple[str | None, str] | None = (None, "")
        """The memory path and Markdown the body shows in full; None while it is being replaced."""
        self._path: str | None = None
        """The memory shown (a different one is shown from its top)."""
        self._drawing = 0
        """Counts the drawings; a history read answers only the drawing that asked for it."""

    def compose(self) -> ComposeResult:
        yield Static(id="preview-fields")
        yield Static(id="preview-raw")
        yield Markdown(id="preview-body")
        yield Static(id="preview-findings")
        yield Static(id="preview-history")

    def on_mount(self) -> None:
        self.border_title = "[0] Preview"

    @work(exclusive=True, group="preview", exit_on_error=False, description="Preview")
    async def show(self, memory: Memory | None, ws: Workspace | None) -> None:
        """Draw this memory (None: nothing selected)."""
        await asyncio.sleep(0.05)  # a newer selection cancels this one: fast scrolling renders once
        self._drawing += 1
        fields = self.query_one("#preview-fields", Static)
        raw = self.query_one("#preview-raw", Static)
        findings = self.query_one("#preview-findings", Static)
        history = self.query_one("#preview-history", Static)
        path = memory.path if memory is not None and ws is not None else None
        if path != self._path:
            self._path = path
            self.scroll_home(animate=False)
            history.update("")  # not the last memory's history while this one's is read
        raw.display = memory is not None and ws is not None and memory.is_malformed
        if memory is None or ws is None:
            fields.update(Content("No memory selected"))
            findings.update("")
            await self._draw_body(None, "")
            return
        # the head, findings and history first: the body of a long memory takes a while
        fields.update(fields_of(memory, ws))
        found = ws.findings_for(memory.path)
        if found:
            findings.update(Content("\n").join([Content.styled("Findings", "bold"), *map(render.finding_line, found)]))
        else:
            findings.update(Content.styled("No findings" if ws.analysed else "Analysing…", "dim"))
        self._load_history(memory, ws, self._drawing)
        if memory.is_malformed:
            raw.update(raw_text(memory))
            await self._draw_body(memory.path, "")
        else:
            await self._draw_body(memory.path, render.clean(redacted(memory.body)))

    async def _draw_body(self, path: str | None, markdown: str) -> None:
        """The body as this Markdown; nothing to do when it shows it in full already (a re-read of the store)."""
        if (path, markdown) == self._body_shown:
            return
        self._body_shown = None
        body = self.query_one("#preview-body", Markdown)
        body.display = False  # never the last memory's text under this one's head
        # Markdown.update removes the old blocks by awaiting their message loops. A newer selection cancels this
        # worker; landing there, the cancel reached those loops while the app's own message loop was waiting on
        # them, and that loop ended: memtui quit with exit code 0 (the trial's fast j presses on a real store).
        # Removed here, out of the cancel's reach, the update has nothing to remove and may be cancelled anywhere.
        await asyncio.shield(body.remove_children())
        await body.update(markdown)
        body.display = True
        self._body_shown = (path, markdown)

    @work(thread=True, exclusive=True, group="memory-history", exit_on_error=False, description="Reading history")
    def _load_history(self, memory: Memory, ws: Workspace, drawing: int) -> None:
        events, context = ws.history_in_context(memory)
        undone = undone_commits(context)
        lines = [Content.styled("History", "bold")]
        if ws.repo is None:
            lines.append(Content.styled("not in git", "dim"))
        elif not events:
            lines.append(Content.styled("no memtui events yet", "dim"))
        for e in events:
            text = f"{e.date[:10]}  {e.action:<11} {e.author}"
            if e.reason:
                text += f" — {e.reason}"
            if e.commit in undone:
                text += " (undone)"
            lines.append(render.plain(text))
        content = Content("\n").join(lines)
        self.post_message(ThreadSaid(lambda: self._show_history(drawing, content)))

    def _show_history(self, drawing: int, content: Content) -> None:
        if drawing == self._drawing:  # a read for an earlier drawing finishing late is not what is shown now
            self.query_one("#preview-history", Static).update(content)

    @on(ThreadSaid)
    def _thread_said(self, message: ThreadSaid) -> None:
        message.stop()
        message.callback()


def fields_of(memory: Memory, ws: Workspace) -> Content:
    """The preview's head: path, malformed state, freshness and the front matter exactly as written."""
    fresh = ws.freshness.get(memory.path)
    lines = [render.plain(memory.path)]
    if memory.is_malformed:
        lines.append(
            render.styled(f"malformed: {memory.error} — read-only here; E fixes it in $EDITOR", "flag-contradiction")
        )
    head = [render.badge(fresh.badge if fresh else "unknown")]
    if fresh and (fresh.since or fresh.added):
        extra = f"  {age_text(fresh)}"
        if fresh.period_days:
            extra += f", period {fresh.period_days} days"
        head.append(render.plain(extra))
    lines.append(Content("").join(head))
    if memory.has_frontmatter:
        # the front matter as written: keys, order, quoting and comments exactly as on disk
        block, _ = frontmatter.split_block(memory.text)
        for line in (block or "").splitlines():
            body = line.rstrip("\r")
            indent = len(body) - len(body.lstrip(" "))
            # wrapping drops leading blanks, so nesting is drawn with a visible mark per level
            lines.append(render.plain("· " * ((indent + 1) // 2) + body[indent:]))
    if not memory.has_frontmatter and not memory.is_malformed:
        lines.append(render.styled("no front matter", "badge-unknown"))
    return Content("\n").join(lines)


def raw_text(memory: Memory) -> Content:
    """A file that could not be parsed, as written: numbered plain lines (its Markdown would be a guess)."""
    lines = redacted(memory.text or "").splitlines() or [""]
    width = len(str(len(lines)))
    head = Content.styled("As written (not rendered: it could not be parsed)", "bold")
    numbered = [
        Content.assemble(render.styled(f"{n:>{width}} │ ", "badge-unknown"), render.plain(line))
        for n, line in enumerate(lines, 1)
    ]
    return Content("\n").join([head, *numbered])
