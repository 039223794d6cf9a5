"""An edit refused because its text would commit a secret keeps the person's text (a new user's trial): in the
review (`e`), on the main screen (`e`) and from `$EDITOR` (`E`), a `n` at "Commit it anyway?" offers the text
again, saying why, instead of throwing it away. Real git, real files, the real app through Pilot."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from conftest import git, memory, said
from textual.pilot import Pilot
from textual.widgets import TextArea

from memtui.audit.repo import parse_trailers
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import ConfirmRisky, EditDialog, KeptEditDialog
from memtui.tui.pilot import select_memory, settle
from memtui.tui.review import ReviewScreen

TODAY = dt.date(2026, 11, 30)
SIZE = (140, 40)
TOKEN = "ghp_" + "x1" * 18
TOK = (
    "---\nname: tok\ndescription: the CI token\ntype: reference\n---\n\n"
    f"The CI token is {TOKEN} for the bot, see https://ci.example.\n"
)


def agent_wrote_a_token(make_store: Callable[..., Path]) -> Path:
    """A store in git, then the agent's new memory holding a GitHub token on line 7 (not committed: memtui never
    records a write that holds a secret)."""
    index = "- [b_rule](b.md) — the b rule\n- [tok](reference_tok.md) — the CI token\n"
    store = make_store({"b.md": memory("b_rule", description="the b rule")}, in_git=True, index=index)
    (store / "reference_tok.md").write_text(TOK)
    return store


def head(store: Path) -> dict[str, list[str]]:
    return parse_trailers(git(store.parent, "log", "-1", "--format=%B"))


def make_app(store: Path, **kw) -> MemtuiApp:  # type: ignore[no-untyped-def]
    return MemtuiApp(store, today=TODAY, watch_interval=0, **kw)


async def decline_the_secret(app: MemtuiApp, pilot: Pilot[None]) -> KeptEditDialog:
    """Answer `n` at "Commit it anyway?"; the dialog that comes up keeps the person's text."""
    question = app.screen
    assert isinstance(question, ConfirmRisky), type(question)
    assert "reference_tok.md:7 (GitHub token)" in str(question.query_one(".dialog-message").render())
    await pilot.press("n")
    await settle(app, pilot)
    kept = app.screen
    assert isinstance(kept, KeptEditDialog), type(kept)
    message = str(kept.query_one(".dialog-message").render())
    assert "looks like a secret: reference_tok.md:7 (GitHub token)" in message, message
    assert "you chose not to commit it" in message and "--allow-secret" not in message
    return kept


async def save_without_the_token(app: MemtuiApp, pilot: Pilot[None], kept: KeptEditDialog, store: Path) -> None:
    """Take the token out of the kept text and save: the person's edit is committed, without the token."""
    area = kept.query_one("#kept-typed", TextArea)
    area.text = area.text.replace(TOKEN, "kept in the vault")
    await pilot.press("ctrl+s")
    await settle(app, pilot)
    assert not isinstance(app.screen, (KeptEditDialog, ConfirmRisky)), type(app.screen)
    assert head(store)["Memtui-Action"] == ["edit"]
    committed = git(store.parent, "show", "HEAD:memory/reference_tok.md")
    assert "deploy bot" in committed and "kept in the vault" in committed and TOKEN not in committed


async def test_a_review_edit_declined_for_a_secret_keeps_the_text_to_take_the_secret_out(
    make_store: Callable[..., Path],
) -> None:
    store = agent_wrote_a_token(make_store)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("2")  # what the agent wrote: its new memory
        await settle(app, pilot)
        card = screen.current()
        assert card is not None and card.paths == ("reference_tok.md",), card
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, EditDialog)
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace("for the bot", "for the deploy bot")
        before = git(store.parent, "rev-parse", "HEAD")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        kept = await decline_the_secret(app, pilot)
        assert "deploy bot" in kept.query_one("#kept-typed", TextArea).text  # the edit, not the text on disk
        assert git(store.parent, "rev-parse", "HEAD") == before and (store / "reference_tok.md").read_text() == TOK
        await save_without_the_token(app, pilot, kept, store)
        assert app.screen is screen


async def test_a_review_edit_declined_and_then_dropped_says_the_refusal_on_the_card(
    make_store: Callable[..., Path],
) -> None:
    """esc in the kept text drops it, as for any refused edit: the card then says why it was refused."""
    store = agent_wrote_a_token(make_store)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("2")
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace("for the bot", "for the deploy bot")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await decline_the_secret(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        assert any("Your text was dropped" in n.message for n in said(app))
        shown = str(screen.query_one("#card-refusal").render())
        assert shown.startswith("Refused: the change would commit what looks like a secret"), shown
        assert (store / "reference_tok.md").read_text() == TOK


async def test_a_main_screen_edit_declined_for_a_secret_keeps_the_text(make_store: Callable[..., Path]) -> None:
    store = agent_wrote_a_token(make_store)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "reference_tok.md")
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, EditDialog)
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace("for the bot", "for the deploy bot")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        kept = await decline_the_secret(app, pilot)
        assert "deploy bot" in kept.query_one("#kept-typed", TextArea).text
        await save_without_the_token(app, pilot, kept, store)
        assert app.screen is app.main_screen


async def test_an_editor_edit_declined_for_a_secret_keeps_the_text(make_store: Callable[..., Path]) -> None:
    """`E`: the text the person left in `$EDITOR` is what is kept, not the file as it was."""

    def editor(path: Path) -> None:
        path.write_text(path.read_text().replace("for the bot", "for the deploy bot"))

    store = agent_wrote_a_token(make_store)
    app = make_app(store, editor_runner=editor)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "reference_tok.md")
        await pilot.press("E")
        await settle(app, pilot)
        kept = await decline_the_secret(app, pilot)
        assert "deploy bot" in kept.query_one("#kept-typed", TextArea).text
        await save_without_the_token(app, pilot, kept, store)
