"""Deciding a review card: archive (older, newer, or the marked memories), merge, edit, approve/verify, fix a
date, keep both, add unlisted memories to MEMORY.md, drop a broken link's line, point a wikilink elsewhere, bring
back or accept a memory the agent deleted. Each asks the app for the decision through `ReviewScreen._ask`."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from textual.app import SuspendNotSupported

from memtui import ops
from memtui.analysis.wikilinks import links_left
from memtui.audit.history import DUPLICATE_PREFIX
from memtui.core.model import Memory
from memtui.core.store import INDEX_NAME
from memtui.review import Card, relinking, successor_named
from memtui.tui.decisions import Outcome, edited_in_editor, follow_changed, keep_final_newline
from memtui.tui.dialogs import ArchiveDialog, EditDialog, MergeDialog, MergeRequest, conflict_reason, fix_date_dialog
from memtui.tui.messages import Host
from memtui.tui.review_cursor import ACCEPTED_WORD, DATE_FIXED, DELETION_WORDS, ReviewCursor


class ReviewDeciding(ReviewCursor):
    """The keys that decide a card (or the marked memories)."""

    def _pair(self) -> tuple[Card, Memory, Memory] | None:
        card = self.current()
        if not self.is_pair(card):
            self.notify("This card is not a pair", severity="warning")
            return None
        assert card is not None
        older, newer = self.shown(card.paths[0]), self.shown(card.paths[1])
        if older is None or newer is None:
            self.notify(
                "One of these memories is gone from the store (reload with ctrl+r on the main screen)",
                severity="warning",
            )
            return None
        return card, older, newer

    def _archive(self, target: Memory, successor: Memory | None, card: Card) -> None:
        """Archive `target` (asks why); on a list card only that memory is decided, and the card stays with the
        others."""
        if successor is not None:
            prefix = DUPLICATE_PREFIX if card.kind == "duplicate" else "superseded by "
            default = f"{prefix}{successor.title}"
        else:
            default = {
                "expired": "expired",
                "stale": "stale: no longer true",
                "archived-but-loaded": "already archived; moved out of the folder the agent loads",
                "secret": "holds a secret; out of what the agent loads",
                "malformed": "unreadable front matter",
                "new": "not worth keeping",
            }.get(card.kind, "no longer needed")
        store, succ = self.store_path, successor.path if successor else None
        expected = {target.path: target.content_hash}
        action = "merged away (duplicate)" if successor is not None and card.kind == "duplicate" else "archived"

        def submit(reason: str, reply: Callable[[Outcome], None]) -> None:
            named = succ or successor_named(self.ws.store, reason, target.path)
            self._ask(
                "Archive",
                action,
                lambda allow, today: ops.archive(
                    store,
                    target.path,
                    reason=reason,
                    superseded_by=named,
                    expected_hash=expected[target.path],
                    allow_secret=allow,
                    today=today,
                ),
                marked=self._alone(card, target.path),
                reply=self._following(expected, reply),
            )

        linked = links_left(self.ws.store, [target.path])
        self.app.push_screen(ArchiveDialog(target.title, default, submit, linked=linked), self._dialog_closed)

    @staticmethod
    def _alone(card: Card, path: str) -> tuple[str, ...]:
        """What a decision on one memory of `card` names apart from the card (`_ask`'s `marked`): on a list card the
        memory itself, so the card is not taken out with the other memories it lists; elsewhere nothing."""
        return (path,) if card.is_bulk else ()

    def _dialog_closed(self, answer: object) -> None:
        """A dialog over the card closed: cancelled (None), no decision was asked, so a refusal the card says is
        spent (the dialog said any refusal of its own, and the person chose not to try again); unless it is a file
        changed on disk, which says why the card now shows another text."""
        if answer is None and not self.pending and self.refusal != self.change_refusal:
            self.refusal = ""
            self.show_card()

    def _following(self, hashes: dict[str, str], reply: Callable[[Outcome], None]) -> Callable[[Outcome], None]:
        """A deciding dialog's `reply`, after `hashes` follow a file that changed on disk (`follow_changed`; `_ask`
        has followed the store by then)."""

        def answered(outcome: Outcome) -> None:
            follow_changed(hashes, outcome)
            reply(outcome)

        return answered

    def action_archive_older(self) -> None:
        """Archive: the marked memories (one commit); on a pair the older memory, replaced by the newer;
        elsewhere the card's memory. Asks why."""
        card = self.current()
        if self._busy():
            return
        if self.marks:
            self._archive_marked(card)  # each as it was when marked
            return
        if card is None or self.refuse_unseen():
            return
        if self.is_pair(card):
            if (pair := self._pair()) is not None:
                self._archive(pair[1], pair[2], card)
            return
        m = self.shown(self._subject(card)) if card.paths else None
        if m is None:
            self.notify(
                "No memory on this card to archive (it is gone, or the card is about MEMORY.md)", severity="warning"
            )
            return
        self._archive(m, self._successor(card), card)

    def _subject(self, card: Card, *, pair_side: int = 0) -> str:
        """The memory a decision on the card acts on when nothing is marked: on a list card the one under its
        cursor, on a pair the side asked for, else the card's memory."""
        return self.under_cursor(card) if card.is_bulk else card.paths[pair_side]

    def _successor(self, card: Card) -> Memory | None:
        """The memory that replaced the card's, when the card names one (a memory that says it is superseded by
        another): archived as superseded by it, as on a pair."""
        if card.kind != "superseded-loaded" or len(card.paths) < 2:
            return None
        return self.shown(card.paths[1])

    def action_archive_newer(self) -> None:
        """Archive the newer memory of the pair instead, replaced by the older. Asks why."""
        if self._busy() or self.refuse_unseen():
            return
        if (pair := self._pair()) is not None:
            self._archive(pair[2], pair[1], pair[0])

    def action_merge(self) -> None:
        """Merge the pair (the merge dialog opens; the newer leads)."""
        if self._busy() or self.refuse_unseen() or (pair := self._pair()) is None:
            return
        card, older, newer = pair
        store, hashes = self.store_path, {older.path: older.content_hash, newer.path: newer.content_hash}
        paths = [older.path, newer.path]
        settles = conflict_reason(older.path, newer.path) if card.kind == "contradiction" else None

        def submit(request: MergeRequest, reply: Callable[[Outcome], None]) -> None:
            self._ask(
                "Merge",
                "merged",
                request.operation(store, paths, hashes),
                reply=self._following(hashes, reply),
            )

        self.app.push_screen(MergeDialog([older, newer], newer.path, settles, submit), self._dialog_closed)

    def action_edit(self) -> None:
        """Edit the memory (the newer of a pair)."""
        self._edit(pair_side=-1)

    def action_edit_older(self) -> None:
        """Edit the older memory of a pair: where a long note says the one outdated line, that line is the fix."""
        self._edit(pair_side=0)

    def _editable(self, pair_side: int) -> tuple[Card, Memory] | None:
        """The card and the memory an edit on it acts on (on a pair the side asked for), or None (said) when there
        is none, or the card cannot be decided on now."""
        card = self.current()
        if card is None or self._busy() or self.refuse_unseen():
            return None
        m = self.shown(self._subject(card, pair_side=pair_side)) if card.paths else None
        if m is None:
            self.notify("Nothing editable on this card", severity="warning")
            return None
        return card, m

    def _edit(self, *, pair_side: int) -> None:
        editable = self._editable(pair_side)
        if editable is None:
            return
        card, m = editable
        if m.is_malformed:
            self._edit_in_editor(m, card)  # as on the main screen (E): a file memtui cannot read is fixed by hand
            return

        def done(text: str | None) -> None:
            if text is None or text == m.text:
                self._dialog_closed(None)
            else:
                self._save_edit(card, m, keep_final_newline(m.text, text))

        self.app.push_screen(EditDialog(m.title, m.text), done)

    def action_edit_in_editor(self) -> None:
        """Fix the card's memory, a file that cannot be read, in the person's editor (as `E` on the main screen)."""
        editable = self._editable(-1)
        if editable is not None:
            card, m = editable
            self._edit_in_editor(m, card)

    def _save_edit(self, card: Card, m: Memory, text: str) -> None:
        """Save the person's text of `m` as an edit, expecting the version they started from (a refusal keeps the
        text and offers it again, joined with the change on disk where they do not touch)."""
        store, expected = self.store_path, m.content_hash
        self._ask(
            "Edit",
            "edited",
            lambda allow, today: ops.edit(store, m.path, text, expected_hash=expected, allow_secret=allow, today=today),
            marked=self._alone(card, m.path),
            typed=text,
            path=m.path,
            base=m.text,
        )

    def _edit_in_editor(self, m: Memory, card: Card) -> None:
        """Fix a file that cannot be read in the person's editor, as `E` does on the main screen; the text they
        leave is saved as an edit (a text that still cannot be read is refused and offered again, not lost)."""
        try:
            text = edited_in_editor(cast(Host, self.app).editor_runner, m.text)
        except SuspendNotSupported:
            self.notify(
                "This terminal cannot hand over to an editor: fix the file in another one, or archive it (a)",
                severity="warning",
            )
            return
        if text == m.text:
            self.notify("No change")
            return
        self._save_edit(card, m, text)

    def action_accept(self) -> None:
        """On a schema card: the memory is right as it is (verified, and its schema finding settled for this
        version); with marks, every marked memory in one commit."""
        self.action_approve()

    def action_approve(self) -> None:
        """Approve what the agent wrote, or confirm a stale memory is still true (stamps last_verified); on a
        schema card, also accept it as it is (its finding settles for this version, `ops.verify_many`); with marks,
        every marked memory in one commit."""
        card = self.current()
        if self._busy():
            return
        if self.marks:
            self._verify_marked()  # each as it was when marked
            return
        if card is None or self.refuse_unseen():
            return
        m = self.shown(self._subject(card)) if card.paths else None
        if m is None:
            self.notify("This memory is gone from the store; nothing to verify", severity="warning")
            return
        if m.is_malformed:
            self.notify(f"{m.path} could not be read ({m.error}); edit it (e) or archive it (a)", severity="warning")
            return
        if not m.has_frontmatter:
            # an approval is a commit (it must outlast this screen), and memtui never adds front matter: the card
            # stays, and says what would settle it
            self.refusal = (
                f"{m.path} has no front matter, so an approval cannot be stamped (memtui never adds front matter): "
                "edit it (e) to add some, archive it (a), or skip it (s)"
            )
            self.show_card()
            return
        store, expected, accept = self.store_path, m.content_hash, card.kind == "schema"
        self._ask(
            "Accept" if accept else "Verify",
            ACCEPTED_WORD if accept else "verified",
            lambda allow, today: ops.verify(
                store, m.path, expected_hash=expected, accept_schema=accept, allow_secret=allow, today=today
            ),
            marked=self._alone(card, m.path),
        )

    def action_fix_date(self) -> None:
        """Show the relative date and the date it meant; write it when the person agrees."""
        card = self.current()
        if card is None or self._busy() or card.kind != "relative-date" or self.refuse_unseen():
            return
        m = self.shown(card.paths[0]) if card.paths else None
        if m is None or card.finding is None:
            self.notify("This memory is gone from the store", severity="warning")
            return
        phrase = str(card.details.get("phrase") or "")
        store, expected = self.store_path, m.content_hash
        today = getattr(self.app, "today", None)
        repo = self.ws.repo
        # every line the fix writes, to show them all (the description often says the phrase too), read from git
        # history by the dialog's worker, off the UI thread
        dialog = fix_date_dialog(
            m,
            card.details,
            card.finding.line,
            preview=lambda: ops.fix_date_preview(store, m.path, phrase=phrase or None, today=today, repo=repo),
        )

        def done(date: str | None) -> None:
            plan = dialog.plan  # the lines the person was shown: the dialog writes no date before it has them
            if date is None or plan is None:
                self._dialog_closed(None)
            else:
                self._ask(
                    "Fix date",
                    DATE_FIXED,
                    lambda allow, today: ops.fix_date(
                        store,
                        m.path,
                        phrase=phrase or None,
                        date=date,
                        lines=plan.numbers,
                        expected_hash=expected,
                        allow_secret=allow,
                        today=today,
                    ),
                )

        self.app.push_screen(dialog, done)

    def action_keep_both(self) -> None:
        """Both memories stay; the pair does not come back until one of them changes."""
        if self._busy() or self.refuse_unseen() or (pair := self._pair()) is None:
            return
        card, older, newer = pair
        store = self.store_path
        self._ask(
            "Keep both",
            "kept both",
            lambda allow, today: ops.keep_both(store, older, newer, kind=card.kind, today=today),
        )

    # ------------------------------------------------------------------------------------------ the index

    def _index_hash(self) -> str | None:
        """The version of MEMORY.md this screen read (None: there is none, or it could not be read, which ops
        refuses on its own): an index decision is refused if it changed since."""
        index = self.ws.store.index
        return index.content_hash if index is not None and not index.error else None

    def action_index_add(self) -> None:
        """On an unindexed card: add a MEMORY.md line for each memory it lists (the marked ones among them, when
        some are, and the card stays for the others), in one commit."""
        card = self.current()
        if card is None or self._busy() or card.kind != "unindexed" or self.refuse_unseen():
            return
        marked = [p for p in card.paths if p in self.marks]
        if set(marked) == set(card.paths):
            marked = []  # every memory it lists: the card is decided, as without marks
        paths = marked or list(card.paths)
        found = {p: m for p in paths if (m := self.shown(p)) is not None}
        if len(found) != len(paths):
            gone = ", ".join(p for p in paths if p not in found)
            self.notify(f"Gone from the store: {gone} (reload with ctrl+r on the main screen)", severity="warning")
            return
        hashes = {p: self.marked_as.get(p, m.content_hash) if p in marked else m.content_hash for p, m in found.items()}
        store, expected = self.store_path, self._index_hash()
        self._ask(
            "Index",
            "indexed",
            lambda allow, today: ops.index(
                store, paths, expected_index_hash=expected, expected_hashes=hashes, allow_secret=allow, today=today
            ),
            marked=marked,
        )

    def action_bring_back(self) -> None:
        """On a memory the agent deleted: write it back as it was last committed, in one commit."""
        card = self.current()
        if card is None or self._busy() or card.kind != "deleted" or not card.paths:
            return
        store, path = self.store_path, card.paths[0]
        self._ask(
            "Bring back",
            DELETION_WORDS[0],
            lambda allow, today: ops.bring_back(store, path, allow_secret=allow, today=today),
        )

    def action_accept_deletion(self) -> None:
        """On a memory the agent deleted: the deletion is fine; it stays deleted, in one commit that writes no file."""
        card = self.current()
        if card is None or self._busy() or card.kind != "deleted" or not card.paths:
            return
        store, path = self.store_path, card.paths[0]
        self._ask(
            "Accept deletion",
            DELETION_WORDS[1],
            lambda allow, today: ops.accept_deletion(store, path, today=today),
        )

    def action_drop_link(self) -> None:
        """On a broken link: remove the MEMORY.md line(s) linking to the missing file, in one commit."""
        card = self.current()
        if card is None or self._busy() or card.kind != "broken-link" or not card.paths or self.refuse_unseen():
            return
        store, link, expected = self.store_path, card.paths[0], self._index_hash()
        self._ask(
            "Drop line",
            "line dropped",
            lambda allow, today: ops.drop_link(
                store, [link], expected_index_hash=expected, allow_secret=allow, today=today
            ),
        )

    def action_relink(self) -> None:
        """On a wikilink to no live memory: point it at the memory the card names, in the card's memory (on a list
        card, the marked ones among those it lists, else all), in one commit."""
        card = self.current()
        finding = relinking(card)
        if card is None or finding is None or self._busy() or self.refuse_unseen():
            return
        successor = str(finding.details.get("suggestion") or "")
        members = card.members or (finding,)
        # each memory whose own finding offers the same memory (the one it names is never offered to itself)
        offered = [f.paths[0] for f in members if f.details.get("suggestion") == successor]
        marked = [p for p in offered if p in self.marks]
        if set(marked) == set(card.paths):
            marked = []  # every memory it lists: the card is decided, as without marks
        paths = marked or offered
        if not marked and set(offered) != set(card.paths):
            marked = offered  # some it lists are offered nothing (the successor's own link): the card stays for them
        hashes = {p: m.content_hash for p in paths if (m := self.shown(p)) is not None}
        if INDEX_NAME in paths and (index := self._index_hash()) is not None:
            hashes[INDEX_NAME] = index  # MEMORY.md as this screen read it
        store, link = self.store_path, str(finding.details.get("target") or card.cue)
        self._ask(
            "Relink",
            "relinked",
            lambda allow, today: ops.relink(
                store, link, to=successor, files=paths, expected_hashes=hashes, allow_secret=allow, today=today
            ),
            marked=marked,
        )

    # ------------------------------------------------------------------------------------------ marks

    def _marked(self) -> list[Memory] | None:
        """The marked memories as the store is now; None (and says which) when one is gone."""
        marked = sorted(self.marks)
        found = [m for p in marked if (m := self.memory(p)) is not None]
        if len(found) != len(marked):
            gone = sorted(set(marked) - {m.path for m in found})
            self.notify(f"Marked but gone from the store: {', '.join(gone)} (unmarked)", severity="warning")
            self.marks -= set(gone)
            self.show_card()
            return None
        return found

    def _archive_marked(self, card: Card | None) -> None:
        """Archive every marked memory in one commit, for one reason (asked)."""
        memories = self._marked()
        if not memories:
            return
        store, paths = self.store_path, [m.path for m in memories]
        hashes = {m.path: self.marked_as.get(m.path, m.content_hash) for m in memories}  # as seen when marked
        default = {"schema": "does not follow the memory schema", "unindexed": "not in the index; not needed"}
        reason = default.get(card.kind, "no longer needed") if card is not None else "no longer needed"

        def submit(reason: str, reply: Callable[[Outcome], None]) -> None:
            self._ask(
                "Archive",
                "archived",
                lambda allow, today: ops.archive_many(
                    store, paths, reason=reason, expected_hashes=hashes, allow_secret=allow, today=today
                ),
                marked=paths,
                reply=self._following(hashes, reply),
            )

        title = f"{len(paths)} marked memories" if len(paths) > 1 else paths[0]
        linked = links_left(self.ws.store, paths)
        self.app.push_screen(ArchiveDialog(title, reason, submit, count=len(paths), linked=linked), self._dialog_closed)

    def _verify_marked(self) -> None:
        """Verify every marked memory (still true: stamps last_verified) in one commit."""
        memories = self._marked()
        if not memories:
            return
        blank = [m.path for m in memories if m.is_malformed or not m.has_frontmatter]
        if blank:  # nothing to stamp there (memtui never adds front matter): unmarked, the rest still verified
            self.marks -= set(blank)
            self.notify(f"No front matter to stamp, unmarked: {', '.join(blank)}", severity="warning", timeout=6)
            memories = [m for m in memories if m.path not in blank]
            self.show_card()
            if not memories:
                return
        store, paths = self.store_path, [m.path for m in memories]
        hashes = {m.path: self.marked_as.get(m.path, m.content_hash) for m in memories}  # as seen when marked
        accept = [p for p in paths if self.marked_on.get(p) == "schema"]  # accepted as they are, as their card said
        self._ask(
            "Accept" if accept else "Verify",
            ACCEPTED_WORD if accept else "verified",
            lambda allow, today: ops.verify_many(
                store, paths, expected_hashes=hashes, accept_schema=accept, allow_secret=allow, today=today
            ),
            marked=paths,
        )
