"""Drawing a review card: the header and group bar, the pair side by side with its claims marked, the single
card with its "why" line, the list card with its preview, and the summary at the end."""

from __future__ import annotations

from collections import Counter

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Label, SelectionList, Static
from textual.widgets.selection_list import Selection

from memtui.analysis.secrets import redacted
from memtui.core.store import INDEX_NAME
from memtui.review import GROUP_NUMBER, Card, tally
from memtui.tui import render
from memtui.tui.review_card import claim_row, group_items, highlight, line_row, unloaded_text, why
from memtui.tui.review_cursor import ReviewCursor
from memtui.tui.widgets import ItemLine


def option_values(listing: SelectionList[str]) -> list[str]:
    """The store paths a list card's list holds, in order."""
    return [str(listing.get_option_at_index(i).value) for i in range(listing.option_count)]


class ReviewDrawing(ReviewCursor):
    """What the ReviewScreen shows; `show_card` redraws it all from the cursor."""

    def show_card(self) -> None:
        """Draw the card under the index (or the summary at the end)."""
        if not self.is_attached:
            return  # the person left while a decision was being written; its outcome still reached the app
        card = self.look(self.current())
        changed = self.unseen_changes()
        self.refresh_bindings()
        self.show_keys()
        sides = self.query_one("#card-sides")
        single = self.query_one("#card-single")
        bulk = self.query_one("#card-bulk")
        summary = self.query_one("#card-summary")
        header = self.query_one("#card-header", ItemLine)
        explain = self.query_one("#card-explain", Static)
        refusal = self.query_one("#card-refusal", Static)
        refusal.display = bool(self.refusal or self.pending or changed)
        if self.pending:
            refusal.update(render.styled(f"{self.pending}…", "badge-unknown"))
        elif self.refusal:
            refusal.update(render.styled(f"Refused: {self.refusal}", "flag-contradiction"))
        else:
            refusal.update(
                render.styled(
                    f"Changed on disk since shown: {', '.join(changed)} — r shows the new text (no decision until then)",
                    "flag-contradiction",
                )
            )
        if not self.ws.analysed:
            sides.display = single.display = bulk.display = False
            summary.display = True
            header.update("Review · the store is still being analysed…")
            explain.update("")
            self.query_one("#summary-text", Static).update(
                "The cards come as soon as the analysis ends. Keys you type meanwhile wait, and act on the first card."
            )
            return
        counts = tally(self.cards, self.decided(), card)
        self.query_one("#card-groups", ItemLine).show_items(
            group_items(counts.groups, card.group if card else None, self.only)
        )
        if card is None:
            sides.display = single.display = bulk.display = False
            summary.display = True
            unseen = len(self.never_shown())
            place = f"{unseen} card{'s' if unseen != 1 else ''} not yet shown" if unseen else "done"
            total = _counted(sum(self.card_counts()), "card")
            header.update(
                Content.assemble(
                    Content(f"Review · {place} · {self._commit_count()} committed · {total}"),
                    self._state_text(),
                )
            )
            explain.update("")
            self.query_one("#summary-text", Static).update(self._summary())
            return
        summary.display = False
        group, n, of = counts.place or (card.group, 1, 1)
        findings, new = _counted(counts.findings, "finding"), _counted(counts.new_writes, "new write")
        header.update(
            Content.assemble(
                render.styled(f"{group} {n} / {of}", "flag-new"),
                Content(f" · {_counted(counts.left, 'card')} left ({findings}, {new})"),
                self._state_text(),
                Content(" · "),
                self._hook_text(),
            )
        )
        fresh = self.ws.freshness.get(card.paths[0]) if len(card.paths) == 1 else None
        mtype = (m.type if (m := self.shown(card.paths[0])) else None) if len(card.paths) == 1 else None
        rule = "" if self.is_pair(card) else why(card, fresh, mtype)
        explain.update(
            Content.assemble(
                render.styled(card.kind, "flag-contradiction" if card.kind == "contradiction" else "flag-lint"),
                Content(" · "),
                render.plain(card.title),
                Content("\n"),
                render.plain(card.explanation + (self._written_by(card) if card.kind == "new" else "")),
                Content("\nwhy: ").stylize("bold") + render.plain(rule) if rule else Content(""),
            )
        )
        raw_shared = card.details.get("shared", []) if card.details else []
        shared = [str(s) for s in raw_shared] if isinstance(raw_shared, list | tuple) else []
        if self.is_pair(card):
            sides.display, single.display, bulk.display = True, False, False
            for side, path, role in (("a", card.paths[0], "older"), ("b", card.paths[1], "newer")):
                m = self.shown(path)
                claim = str(card.details.get(f"{role}_claim") or "")
                raw = m.text if m else "(gone)"
                self.query_one(f"#side-{side}-title", Label).update(render.plain(f"{role}: {path}"))
                self.query_one(f"#side-{side}").border_title = render.clean(f"{role}: {path}")
                self.query_one(f"#side-{side}-text", Static).update(highlight(raw, shared, claim))
                self.call_after_refresh(self._scroll_to_claim, f"#side-{side}", raw, claim)
        elif card.is_bulk:
            sides.display, single.display, bulk.display = False, False, True
            self._fill_bulk(card)
        else:
            sides.display, single.display, bulk.display = False, True, False
            raw = ""
            if card.kind == "new" and card.diff:
                text = render.diff(redacted(card.diff))
            elif card.kind == "deleted":  # gone from disk: the text it had when last committed, what R writes back
                raw = card.text
                text = highlight(raw, []) if raw else render.plain("(git holds no text of it)")
            elif unloaded := unloaded_text(card):
                text = render.plain(unloaded)  # index-over-cap: every memory whose line the agent does not see
            else:
                m = self.shown(card.paths[0]) if card.paths else None
                raw = m.text if m else card.explanation
                text = highlight(raw, [card.cue] if card.cue else [])
            self.query_one("#single-text", Static).update(text)
            self._open_at(card, raw)

    def _open_at(self, card: Card, raw: str) -> None:
        """A card about one memory opens at its top, a relative date's at the line to fix (a daily log says 今天 on
        line 110 too); drawn again for the same card at the same line, it stays where the person scrolled."""
        at_line = card.kind in ("relative-date", "broken-wikilink")
        line = card.finding.line if at_line and card.finding is not None else None
        where = (card.key, card.cue, line)
        if where == self.opened_at:
            return
        self.opened_at = where
        self.call_after_refresh(self._scroll_to_line, raw, line or 1)

    def _scroll_to_line(self, text: str, line: int) -> None:
        if not self.is_attached:
            return
        scroll = self.query_one("#card-single", VerticalScroll)
        row = line_row(text, line, scroll.scrollable_content_region.width)
        scroll.scroll_to(y=max(0, row - 2), animate=False)

    def _scroll_to_claim(self, selector: str, text: str, claim: str) -> None:
        """A long memory opens at the claim the finding quotes (a few lines above it, for context)."""
        if not self.is_attached:
            return
        scroll = self.query_one(selector, VerticalScroll)
        row = claim_row(text, claim, scroll.scrollable_content_region.width)
        scroll.scroll_to(y=max(0, row - 2), animate=False)

    def _fill_bulk(self, card: Card) -> None:
        """The bulk card's list: one row per memory the rule flags, marked rows ticked."""
        listing = self.query_one("#bulk-list", SelectionList)
        if option_values(listing) != list(card.paths):
            listing.clear_options()
            listing.add_options([Selection(self._row(path), path, path in self.marks) for path in card.paths])
        else:
            ticked = set(listing.selected)
            for path in card.paths:
                if (path in self.marks) != (path in ticked):
                    listing.toggle(path)
        if listing.highlighted is None and listing.option_count:
            listing.highlighted = 0
        if self.focused is not listing:
            listing.focus()
        self._preview_bulk(listing.highlighted)

    def _row(self, path: str) -> str:
        m = self.shown(path)
        return render.clean(f"{path}  {m.title}" if m is not None and m.title != path else path)

    def _preview_bulk(self, highlighted: int | None) -> None:
        card = self.seen_card
        if card is None or not card.is_bulk or self.current() is None:
            return
        at = highlighted if highlighted is not None and 0 <= highlighted < len(card.paths) else 0
        member = card.members[at] if at < len(card.members) else None
        m = self.shown(card.paths[at])
        index = self.ws.store.index if card.paths[at] == INDEX_NAME else None  # a wikilink card lists MEMORY.md
        raw = m.text if m is not None else index.text if index is not None else None
        text = Content.assemble(
            render.styled(member.message if member else card.paths[at], "flag-lint"),
            Content("\n\n"),
            highlight(raw, [card.cue] if card.cue else []) if raw is not None else Content("(gone)"),
        )
        self.query_one("#bulk-text", Static).update(text)

    def _state_text(self) -> Content:
        """Marks, the filter and the held-back candidates, as far as they apply."""
        parts = []
        if self.marks:
            parts.append(render.styled(f"{len(self.marks)} marked", "flag-secret"))
        if self.only:
            parts.append(Content(f"only {self.only} (/)"))
        report = self.ws.report
        held = len(report.held_back) if report is not None else 0
        if held:
            parts.append(
                Content(f"{held} weaker pair{'s' if held != 1 else ''} {'shown' if self.weaker else 'held back (w)'}")
            )
        return Content.assemble(*(Content(" · ") + p for p in parts)) if parts else Content("")

    def _hook_text(self) -> Content:
        """Whether the agent's writes reach memtui as they happen (the hook), for the header."""
        hook = self.hook
        if hook is None:
            return Content("hook: …")
        if hook.error:
            return render.styled("hook: settings unreadable", "badge-unknown")
        if hook.installed and not (hook.hooks_disabled or hook.managed_only):
            return render.styled("hook: installed", "badge-fresh")
        if hook.installed:
            return render.styled("hook: disabled", "badge-expired")
        if hook.plugin:
            return render.styled("hook: plugin installed", "badge-fresh")
        return render.styled("hook: not installed", "badge-unknown")

    def _written_by(self, card: Card) -> str:
        """Which Claude Code session(s) wrote this memory since the last review, from the commit trailers."""
        path = card.paths[0] if card.paths else ""
        if path not in self.sessions:
            return "" if self.hook is None else " · not yet recorded in git (session unknown)"
        sessions = self.sessions[path]
        if not sessions:
            return " · recorded without a session (not by the hook)"
        shown = ", ".join(s[:8] for s in sessions[:3]) + (f" +{len(sessions) - 3}" if len(sessions) > 3 else "")
        return f" · session{'s' if len(sessions) > 1 else ''} {shown}"

    def _summary(self) -> Content:
        unseen = self.never_shown()
        if unseen and not self.finished:
            return self._not_finished(unseen)
        counts = Counter(d.action for d in self.decisions if d.commit)
        title = "Review finished" if self.finished else "End of the cards"
        lines = [Content.styled(title, "bold"), Content("")]
        if not counts:
            lines.append(Content("Nothing committed."))
        for action, n in sorted(counts.items()):
            lines.append(Content(f"  {action}: {n}"))
        looked = sum(d.closes for d in self.looked)  # cards; a list card's memory with nothing to write is no card
        if looked:
            lines.append(Content(f"  looked at, nothing to write: {looked}"))
        left = self.left()
        decided, moot, skipped = self.session.counted or self.card_counts()
        lines += [
            Content(""),
            Content(
                f"{_counted(decided + moot + skipped, 'card')} in this review: {decided} decided, {moot} settled by "
                f"those decisions, {skipped} skipped or left."
            ),
            Content(""),
        ]
        unread = sum(c.group == "agent" for c in left)
        if self.finished:
            lines.append(render.styled("Marked finished in git: next week's queue starts here.", "badge-fresh"))
        else:
            if unread:
                # what the agent wrote is new only until a review is marked finished: say so before it happens
                lines.append(
                    render.styled(
                        f"{unread} of the agent's writes {'was' if unread == 1 else 'were'} skipped: marking the review "
                        "finished counts them as"
                        " seen, and they will not come back as new (their other findings will). Leave (escape) to"
                        " keep them new for next time.",
                        "flag-contradiction",
                    )
                )
            lines.append(Content("enter: mark the review finished in git (next week starts here) · escape: leave"))
        return Content("\n").join(lines)

    def _not_finished(self, unseen: list[Card]) -> Content:
        """The end of the cards after a jump passed some by: not the end of the review, and where they are."""
        per_group = Counter(c.group for c in unseen)
        where = " · ".join(f"{GROUP_NUMBER[g]} {g} {n}" for g, n in per_group.items())
        first = unseen[0].group
        writes = sum(c.group == "agent" for c in unseen)
        lines = [
            render.styled(f"Not finished: {_counted(len(unseen), 'card')} not yet shown", "flag-contradiction"),
            Content(""),
            Content(f"  {where}"),
            Content(""),
            Content(
                f"g: the next group with cards not yet shown ({GROUP_NUMBER[first]} {first}) · "
                "a digit: that group · escape: leave (the review goes on when you come back with r)"
            ),
        ]
        if writes:
            lines.append(
                Content(
                    f"{_counted(writes, 'agent write')} among them must be shown before the review can be marked "
                    "finished: finishing counts the agent's writes as seen."
                )
            )
        else:
            lines.append(Content("enter: mark the review finished anyway (these cards stay for the next review)"))
        return Content("\n").join(lines)


def _counted(n: int, noun: str) -> str:
    """`1 finding`, `2 findings`."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
