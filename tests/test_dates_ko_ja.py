"""Korean and Japanese relative dates: found, counted and fixed as the English and Chinese ones are.

"다음 주 목요일", "지난달", "来週の木曜日" and "先月" were not found at all. Words that only hold the same characters
(다음 주제: the next topic; 説明日本語: 説明 + 日本語) are no dates, nor is a count of days from an event
(마감 3일 전, リリースの3日前). Chinese writes 今日, 明日 and 昨日 too, mostly in names (the lines below are
1Skip__stock-analyzer's): they are Japanese dates only in a text written in Japanese.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import memory
from test_dates import TODAY, WRITTEN, _relative, _store, head_reason
from test_fix_date_dialog import SIZE, make_app, on_date_card, shown
from textual.widgets import Input

from memtui import ops
from memtui.analysis import dates
from memtui.tui.dialogs import FixDateDialog
from memtui.tui.pilot import settle

# WRITTEN is Sunday 2026-11-22: next week runs from Monday 2026-11-23, its Thursday is 2026-11-26


@pytest.mark.parametrize(
    ("text", "phrase", "day"),
    [
        ("결제 모듈은 다음 주 목요일에 배포한다.", "다음 주 목요일", dt.date(2026, 11, 26)),
        ("다음주 목요일까지 QA를 끝낸다.", "다음주 목요일", dt.date(2026, 11, 26)),
        ("이번 주 금요일 회의에서 정한다.", "이번 주 금요일", dt.date(2026, 11, 20)),
        ("지난주 월요일에 롤백했다.", "지난주 월요일", dt.date(2026, 11, 9)),
        ("내일 배포한다.", "내일", dt.date(2026, 11, 23)),
        ("어제 장애가 났다.", "어제", dt.date(2026, 11, 21)),
        ("오늘 고쳤다.", "오늘", dt.date(2026, 11, 22)),
        ("모레까지 답을 준다.", "모레", dt.date(2026, 11, 24)),
        ("그저께 머지했다.", "그저께", dt.date(2026, 11, 20)),
        ("3일 전에 배포했다.", "3일 전", dt.date(2026, 11, 19)),
        ("우리는 2주 후에 다시 본다.", "2주 후", dt.date(2026, 12, 6)),
        ("약 한 달 전에 바꿨다.", "한 달 전", dt.date(2026, 10, 23)),
        ("決済モジュールは来週の木曜日にデプロイする。", "来週の木曜日", dt.date(2026, 11, 26)),
        ("来週木曜までにマージする。", "来週木曜", dt.date(2026, 11, 26)),
        ("明日リリースする。", "明日", dt.date(2026, 11, 23)),
        ("昨日ビルドが壊れた。", "昨日", dt.date(2026, 11, 21)),
        ("今日修正した。", "今日", dt.date(2026, 11, 22)),
        ("明後日に再確認する。", "明後日", dt.date(2026, 11, 24)),
        ("一昨日のバグを直した。", "一昨日", dt.date(2026, 11, 20)),
        ("3日前に直した。", "3日前", dt.date(2026, 11, 19)),
        ("2週間後に再確認する。", "2週間後", dt.date(2026, 12, 6)),
        ("三日前に報告があった。", "三日前", dt.date(2026, 11, 19)),
    ],
)
def test_korean_and_japanese_days_get_their_day(text: str, phrase: str, day: dt.date) -> None:
    (hit,) = dates.find_relative_dates(text, WRITTEN)
    assert (hit.phrase, hit.suggestion, hit.span, hit.replacement) == (phrase, day, None, day.isoformat())
    assert not dates.names_range(phrase)


@pytest.mark.parametrize(
    ("text", "phrase", "span", "replacement"),
    [
        ("지난달에 PG사를 바꿨다.", "지난달", ("2026-10-01", "2026-10-31"), "2026년 10월"),
        ("다음 달 이전한다.", "다음 달", ("2026-12-01", "2026-12-31"), "2026년 12월"),
        ("다음 주에 감사가 시작된다.", "다음 주", ("2026-11-23", "2026-11-29"), "2026-11-23~2026-11-29"),
        ("이번 주말에 점검한다.", "이번 주말", ("2026-11-21", "2026-11-22"), "2026-11-21~2026-11-22"),
        ("내년에 종료한다.", "내년", ("2027-01-01", "2027-12-31"), "2027년"),
        ("先月に決済代行を切り替えた。", "先月", ("2026-10-01", "2026-10-31"), "2026年10月"),
        ("来週に監査が始まる。", "来週", ("2026-11-23", "2026-11-29"), "2026-11-23〜2026-11-29"),
        ("今週末にメンテナンスする。", "今週末", ("2026-11-21", "2026-11-22"), "2026-11-21〜2026-11-22"),
        ("来年度に終了する。", "来年", ("2027-01-01", "2027-12-31"), "2027年"),
    ],
)
def test_korean_and_japanese_ranges_are_said_as_ranges_in_their_language(
    text: str, phrase: str, span: tuple[str, str], replacement: str
) -> None:
    (hit,) = dates.find_relative_dates(text, WRITTEN)
    assert hit.phrase == phrase and hit.suggestion is None
    assert hit.span is not None and (hit.span[0].isoformat(), hit.span[1].isoformat()) == span
    assert hit.replacement == replacement
    assert dates.names_range(phrase)
    assert dates.what_it_names(replacement) in ("week", "weekend", "month", "year")


@pytest.mark.parametrize(
    "text",
    [
        "다음 주제는 환불 흐름이다.",  # 주제: topic
        "다음 주의사항을 지켜라.",  # 주의사항: precautions
        "다음 주소로 보낸다.",
        "지난 주기에 실패했다.",  # 주기: cycle
        "다음 달성 목표는 99%다.",  # 달성: achievement
        "오늘날 흔한 방식이다.",  # nowadays
        "어제오늘 일이 아니다.",  # nothing new
        "내일모레 끝난다.",  # any day now
        "안내일정을 확인한다.",
        "오늘의 데이터를 쓴다.",  # today's data, whenever it runs
        "마감 3일 전에 알림을 보낸다.",  # three days before the deadline
        "그 3일 전에 공지했다.",  # three days before that
        "5월 3일 전에 끝낸다.",  # before 3 May
        "SetTimer 16ms≈60fps 오전제 사례.",  # KoEnVue's MEMORY.md: a wrong premise
        '필드 값은 "내일"이다.',
        "説明日本語化は後日対応する。",  # 説明 + 日本語
        "優先月次処理を先に回す。",  # 優先 + 月次
        "将来年金の計算をする。",  # 将来 + 年金
        "今日の作業を記録する。",  # today's work, whenever it is done
        "今日では一般的な手法だ。",  # nowadays
        "1週間前倒しで進める。",  # brought forward a week
        "3日前後で終わる。",  # about three days
        "リリースの3日前に通知する。",  # three days before the release
        "締切3日前に通知する。",
        "開始から2週間後に見直す。",
        "5月3日前に終わらせる。",
        "毎週来週の予定を確認する。",
        "明日香さんに確認する。",
        "値は「明日」で固定する。",
        "次回以降は本書の手順で迂回する。",  # fixed-cam-vr's mcp_unity_setup.md
    ],
)
def test_words_that_only_hold_these_characters_are_not_dates(text: str) -> None:
    assert dates.find_relative_dates(text, WRITTEN) == []


CHINESE = [
    "- 报告内容包含大盘温度、自选股摘要、今日推荐、财务 / 资金 / 新闻摘要",
    "最近交易日复盘与归档，页面展示复盘概览、明日进化建议和历史计划",
    "避免把钨、稀土、昨日换手前十等细分或风格项混入行业/全部。",
]


@pytest.mark.parametrize(
    "text",
    [
        *CHINESE,
        "\n".join([*CHINESE, "图鉴数据改用 ポケモン 的接口。"]),  # one katakana name does not make the note Japanese
    ],
)
def test_chinese_jinri_mingri_zuori_are_names_not_japanese_dates(text: str) -> None:
    """Chinese writes 今日, 明日 and 昨日 mostly in the names of things (1Skip__stock-analyzer: 5 of the 6 lines
    saying 明日 or 昨日 name a feature or a ranking); they are read as dates only in a text written in Japanese."""
    assert dates.find_relative_dates(text, WRITTEN) == []


def test_the_same_words_in_japanese_text_and_chinese_today_are_dates() -> None:
    japanese = dates.find_relative_dates("今日推荐の画面は明日リリースする。", WRITTEN)
    assert [(h.phrase, h.suggestion) for h in japanese] == [("今日", WRITTEN), ("明日", dt.date(2026, 11, 23))]
    chinese = dates.find_relative_dates("今天主要修复搜索和自选股。", WRITTEN)
    assert [h.phrase for h in chinese] == ["今天"]


@pytest.mark.parametrize(
    ("typed", "phrase", "proposal", "written"),
    [
        ("2026년 10월", "지난달", "2026년 10월", "2026년 10월"),  # the offer, as offered
        ("2026-09", "지난달", "2026년 10월", "2026년 9월"),  # a month, said as the phrase says one
        ("2026년9월", "지난달", None, "2026년 9월"),
        ("2028", "내년", None, "2028년"),
        ("2026-09", "先月", "2026年10月", "2026年9月"),
        ("2026-11-23〜2026-11-29", "来週", "2026-11-23〜2026-11-29", "2026-11-23〜2026-11-29"),
        ("2026-12-03", "다음 주 목요일", "2026-11-26", "2026-12-03"),
    ],
)
def test_what_may_be_typed_for_a_korean_or_japanese_phrase(
    typed: str, phrase: str, proposal: str | None, written: str
) -> None:
    assert dates.written_as(typed, phrase, proposal) == written
    assert dates.written_as(written, phrase, proposal) == written  # what the dialog shows is what is written


def test_a_month_typed_for_a_korean_day_is_refused() -> None:
    with pytest.raises(ValueError, match="is not a day like"):
        dates.written_as("2026년 11월", "다음 주 목요일", "2026-11-26")


KOREAN = memory(
    "project_release",
    "project",
    description="결제 모듈은 다음 주 목요일에 배포",
    body="결제 모듈은 다음 주 목요일에 배포한다. 다음 주제는 환불 흐름이다.\n\n"
    "지난달에 PG사를 바꿨다. 마감 3일 전에 알림을 보낸다.\n\n**Why:** QA 일정.\n\n"
    "**How to apply:** 다음 주 목요일 전에 위험한 변경은 머지하지 않는다.",
)
JAPANESE = memory(
    "project_payment",
    "project",
    description="決済モジュールは来週の木曜日にデプロイ",
    body="決済モジュールは来週の木曜日にデプロイする。説明日本語化は後日。\n\n"
    "先月に決済代行を切り替えた。締切3日前に通知する。\n\n**Why:** QA の日程。\n\n"
    "**How to apply:** 来週の木曜日までに危険な変更はマージしない。",
)


def test_check_reports_them_and_fix_date_writes_the_date_it_offers(tmp_path: Path) -> None:
    """`memtui check --json` finds the two dates of each memory and nothing else; fix-date writes the date the
    finding offers in place of the phrase, on every line that says it (the description too), keeping the rest
    of the line, particles included."""
    store = _store(tmp_path, {"project_release.md": KOREAN, "project_payment.md": JAPANESE})
    found = {(f["paths"][0], f["details"]["phrase"]): f["details"] for f in _relative(store)}  # type: ignore[index]
    assert {key: (d["replacement"], d["occurrences"]) for key, d in found.items()} == {  # type: ignore[index]
        ("project_release.md", "다음 주 목요일"): ("2026-11-26", 3),
        ("project_release.md", "지난달"): ("2026년 10월", 1),
        ("project_payment.md", "来週の木曜日"): ("2026-11-26", 3),
        ("project_payment.md", "先月"): ("2026年10月", 1),
    }
    preview = ops.fix_date_preview(store, "project_release.md", today=TODAY)
    assert preview.phrase == "다음 주 목요일" and preview.numbers == (3, 7, 13)
    assert preview.shown("2026-11-26")[2:4] == (
        "line 7: - 결제 모듈은 다음 주 목요일에 배포한다. 다음 주제는 환불 흐름이다.",
        "line 7: + 결제 모듈은 2026-11-26에 배포한다. 다음 주제는 환불 흐름이다.",
    )
    before = (store / "project_release.md").read_text()
    result = ops.fix_date(store, "project_release.md", lines=preview.numbers, today=TODAY)
    assert result.shown == preview.shown("2026-11-26")
    assert (store / "project_release.md").read_text() == before.replace("다음 주 목요일", "2026-11-26")
    assert head_reason(store) == '"다음 주 목요일" → 2026-11-26 (counted from 2026-11-22, the file\'s first commit)'
    ops.fix_date(store, "project_release.md", phrase="지난달", today=TODAY)
    assert "2026년 10월에 PG사를 바꿨다. 마감 3일 전에" in (store / "project_release.md").read_text()

    before = (store / "project_payment.md").read_text()
    ops.fix_date(store, "project_payment.md", today=TODAY)
    assert (store / "project_payment.md").read_text() == before.replace("来週の木曜日", "2026-11-26")
    ops.fix_date(store, "project_payment.md", phrase="先月", date="2026-09", today=TODAY)
    assert "2026年9月に決済代行を切り替えた。" in (store / "project_payment.md").read_text()
    assert _relative(store) == []


def test_a_korean_dated_heading_is_the_day_it_counts_from_and_a_korean_date_beside_the_phrase_glosses_it(
    tmp_path: Path,
) -> None:
    """내일 under "## 2026년 3월 4일 작업" is 2026-03-05. The line that says when it deployed (2026년 3월 4일에 배포했고)
    still says 내일, counted from the same heading (a day something happened is no day the line was written); the
    one whose 내일 is followed by its day in brackets, 내일(2026년 3월 5일), says it already."""
    body = (
        "## 2026년 3월 4일 작업\n\n공급사 통화는 내일이다.\n\n"
        "2026년 3월 4일에 배포했고, 내일 확인한다.\n\n검수는 내일(2026년 3월 5일) 끝난다.\n\n**Why:** x\n\n**How to apply:** y"
    )
    store = _store(tmp_path, {"project_log.md": memory("project_log", "project", body=body)})
    (found,) = _relative(store)
    assert found["line"] == 9 and found["details"]["suggestion"] == "2026-03-05"  # type: ignore[index]
    assert found["details"]["base_source"] == 'the heading "## 2026년 3월 4일 작업"'  # type: ignore[index]
    assert (found["details"]["occurrences"], found["details"]["together"]) == (2, 2)  # type: ignore[index]


async def test_the_review_card_and_its_dialog_offer_the_korean_range(tmp_path: Path) -> None:
    store = _store(tmp_path, {"project_release.md": KOREAN.replace("다음 주 목요일", "금요일")})
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        _, card = await on_date_card(app, pilot, "project_release.md")
        assert "지난달" in card.explanation and "2026년 10월" in card.explanation
        await pilot.press("f")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, FixDateDialog)
        assert dialog.query_one(Input).value == "2026년 10월"
        assert "2026년 10월에 PG사를 바꿨다." in shown(dialog, "#fix-after")
        await pilot.press("enter")
        await settle(app, pilot)
        assert "2026년 10월에 PG사를 바꿨다. 마감 3일 전에" in (store / "project_release.md").read_text()
