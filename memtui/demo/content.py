"""The demo store's content: a bilingual project memory written by an agent over six months.

Dates are day offsets from the day the demo is built (`{d-120}` is 120 days before it), so the demo looks
the same whenever it is opened. Every finding kind memtui knows appears at least once, and one rule is
revoked in the history (the polite writing style, superseded by the direct one).

Over 400 lines because it is data, not logic: the memory texts themselves, kept in one file so the story
they tell (and the findings it plants) can be read top to bottom.
"""

from __future__ import annotations

# (file, commit day offset, text). Files are written by "the agent" in commits on those days.
MEMORIES: list[tuple[str, int, str]] = [
    (
        "user_role.md",
        -180,
        """---
name: user_role
description: Senior backend engineer on Atlas, ten years of Go, new to the React front end
type: user
created: {d-180}
updated: {d-40}
---

User is a senior backend engineer on the Atlas billing platform with about ten years of Go.
They are new to the React part of the project, so explain hooks and JSX from first principles.
""",
    ),
    (
        "user_language.md",
        -175,
        """---
name: user_language
description: 用户母语是中文，技术讨论可以中英混用
type: user
created: {d-175}
updated: {d-60}
---

用户母语是中文。技术讨论可以中英混用，代码、命令和报错信息保持英文原文。
""",
    ),
    (
        "user_timezone.md",
        -170,
        """---
name: user_timezone
description: User works from Shanghai (UTC+8); standups are at 10:00 local time
type: user
created: {d-170}
updated: {d-170}
---

User works from Shanghai (UTC+8). The daily standup is at 10:00 Shanghai time; avoid proposing meetings after 19:00.
""",
    ),
    (
        "user_editor.md",
        -160,
        """---
name: user-editor
description: User edits in Neovim with gopls and runs tests from a tmux pane
metadata:
  type: user
  modified: {d-150}T09:12:44.120Z
---

User edits in Neovim (gopls, nvim-dap) and keeps tests running in a tmux pane; give commands they can paste into a shell.
""",
    ),
    (
        "user_observability.md",
        -150,
        """---
name: user_observability
description: User cares about observability and structured logging
type: user
created: {d-150}
updated: {d-150}
---

User is especially interested in observability: structured logs, RED metrics and tracing. Relate design choices to how they will be debugged in production.
""",
    ),
    (
        "feedback_testing_real_db.md",
        -178,
        """---
name: feedback_testing_real_db
description: Integration tests hit a real Postgres database, never a mock
type: feedback
created: {d-178}
updated: {d-178}
---

Integration tests must run against a real Postgres database (the docker-compose service), never a mocked repository.

**Why:** Last quarter a mocked repository hid a broken migration that then failed in production.

**How to apply:** Any test that touches SQL starts the `db` service; unit tests of pure functions need no database at all.
""",
    ),
    (
        "feedback_no_mock_db_zh.md",
        -120,
        """---
name: feedback_no_mock_db_zh
description: 集成测试不要 mock 数据库，必须连真实 Postgres
type: feedback
created: {d-120}
updated: {d-120}
---

集成测试不要 mock 数据库，必须连真实的 Postgres 数据库。

**Why:** 上季度 mock 掩盖了一次 migration 失败，上线后才暴露。

**How to apply:** 涉及 SQL 的测试都先启动 docker-compose 里的 db 服务。
""",
    ),
    (
        "feedback_writing_polite.md",
        -176,
        """---
name: feedback_writing_polite
description: Write release notes and replies in a polite, formal tone
type: feedback
created: {d-176}
updated: {d-176}
---

Write release notes and customer-facing replies in a polite, formal tone; soften every request.

**Why:** Early customers were enterprise buyers who expected formal language.

**How to apply:** Open with a courtesy line and avoid contractions.
""",
    ),
    (
        "feedback_writing_direct.md",
        -95,
        """---
name: feedback_writing_direct
description: Write release notes and replies in a direct, plain style; no courtesy padding
type: feedback
created: {d-95}
updated: {d-95}
---

Write release notes and customer-facing replies in a direct, plain style: lead with the change, no courtesy padding, no AI-sounding phrases.

**Why:** The user now finds the formal tone slow to read; customers asked for shorter notes.

**How to apply:** First sentence says what changed and who is affected; cut "we are pleased to".
""",
    ),
    (
        "feedback_use_npm.md",
        -172,
        """---
name: feedback_use_npm
description: Front end installs dependencies with npm; lockfile is package-lock.json
type: feedback
created: {d-172}
updated: {d-172}
---

The front end installs dependencies with npm, and the lockfile is package-lock.json.

**Why:** CI caches node_modules keyed on package-lock.json.

**How to apply:** `npm ci` in CI, `npm install` locally.
""",
    ),
    (
        "feedback_use_bun.md",
        -45,
        """---
name: feedback_use_bun
description: Front end switched to bun; no longer use npm
type: feedback
created: {d-45}
updated: {d-45}
---

The front end switched to bun: install and run scripts with bun, no longer npm. The lockfile is now bun.lockb.

**Why:** bun installs in a fraction of the time and runs the tests directly.

**How to apply:** Delete any package-lock.json you see; CI runs `bun install --frozen-lockfile`.
""",
    ),
    (
        "feedback_commit_english.md",
        -165,
        """---
name: feedback_commit_english
description: Commit messages in English, imperative mood
type: feedback
created: {d-165}
updated: {d-165}
---

Write commit messages in English, imperative mood ("Add retry to webhook sender").

**Why:** The billing SDK is open source and outside contributors read the history.

**How to apply:** Subject under 72 characters; body explains why.
""",
    ),
    (
        "feedback_commit_imperative.md",
        -70,
        """---
name: feedback_commit_imperative
description: Commit subjects in the imperative, in English, under 72 characters
type: feedback
created: {d-70}
updated: {d-70}
---

Commit messages are written in English in the imperative mood, with the subject under 72 characters.

**Why:** Outside contributors read the SDK history.

**How to apply:** "Fix rounding in invoice totals", not "Fixed rounding".
""",
    ),
    (
        "feedback_weekly_report_formal.md",
        -140,
        """---
name: feedback_weekly_report_formal
description: 周报用正式书面语
type: feedback
created: {d-140}
updated: {d-140}
---

写周报用正式的书面语，避免口语和网络用语。

**Why:** 周报会抄送给客户方的项目经理。

**How to apply:** 用“已完成”“计划于”这类措辞。
""",
    ),
    (
        "feedback_weekly_report_casual.md",
        -30,
        """---
name: feedback_weekly_report_casual
description: 周报改为口语化，直接说重点
type: feedback
created: {d-30}
updated: {d-30}
---

周报不用太正式了，改为口语化一点，直接说重点就行。

**Why:** 领导嫌现在的周报太官方，读起来累。

**How to apply:** 每条一句话，可以写“搞定了”“卡在……”。
""",
    ),
    (
        "feedback_small_prs.md",
        -150,
        """---
name: feedback_small_prs
description: Keep pull requests under 400 changed lines
type: feedback
created: {d-150}
updated: {d-150}
---

Keep pull requests under about 400 changed lines; split refactors from behaviour changes.

**Why:** Reviews of large PRs took days and missed a pricing bug.

**How to apply:** Open a stacked PR when a change grows past the limit.
""",
    ),
    (
        "feedback_error_wrapping.md",
        -130,
        """---
name: feedback_error_wrapping
description: Wrap Go errors with context using fmt.Errorf and %w
type: feedback
created: {d-130}
updated: {d-130}
---

Wrap Go errors with context (`fmt.Errorf("load invoice %d: %w", id, err)`); never return a bare `err` across package boundaries.

**Why:** On-call could not tell which of five callers produced "context deadline exceeded".

**How to apply:** Lint with wrapcheck in CI.
""",
    ),
    (
        "feedback_review_tests_first.md",
        -110,
        """---
name: feedback_review_tests_first
description: 代码评审先看测试，再看实现
type: feedback
created: {d-110}
updated: {d-110}
---

代码评审时先读测试，确认测试覆盖了需求，再看实现。

**Why:** 用户发现先看实现容易被作者的思路带偏。

**How to apply:** 评审意见里先写对测试的看法。
""",
    ),
    (
        "feedback_no_trailing_summary.md",
        -100,
        """---
name: feedback_no_trailing_summary
description: Do not end answers with a recap of what was just said
type: feedback
created: {d-100}
updated: {d-100}
---

Don't end answers with a summary of what was just said; stop when the content ends.

**Why:** User reads the whole answer and finds the recap padding.

**How to apply:** No "In summary" or "To recap" paragraphs.
""",
    ),
    (
        "feedback_migrations.md",
        -90,
        """---
name: feedback_migrations
description: Database migrations are additive; drop columns one release later
type: feedback
created: {d-90}
updated: {d-90}
---

Migrations only add: new columns are nullable, and a column is dropped one release after the code stops reading it.

**Why:** A same-release drop broke the rolling deploy in June.

**How to apply:** Split destructive changes into two PRs.
""",
    ),
    (
        "feedback_feature_flags.md",
        -85,
        """---
name: feedback_feature_flags
description: New billing behaviour ships behind a feature flag
type: feedback
created: {d-85}
updated: {d-85}
---

New billing behaviour ships behind a feature flag in Unleash, off by default.

**How to apply:** Name flags `billing.<feature>`; remove them within two releases.
""",
    ),
    (
        "feedback_log_fields.md",
        -60,
        """---
name: feedback_log_fields
description: Structured log fields use snake_case keys
type: feedback
created: {d-60}
updated: {d-60}
---

Structured log fields use snake_case keys (`invoice_id`, `tenant_id`), never camelCase.

**Why:** The Loki queries and alerts key on snake_case.

**How to apply:** Use the `logx` helpers, which enforce it.
""",
    ),
    (
        "feedback_timezones.md",
        -55,
        """---
name: feedback_timezones
description: Store timestamps in UTC, convert at the edge
type: feedback
created: {d-55}
updated: {d-55}
---

Store every timestamp in UTC (timestamptz) and convert to the tenant's zone only when rendering.

**Why:** Invoices dated in local time were off by a day for tenants in UTC-8.

**How to apply:** Reject `time.Local` in code review.
""",
    ),
    (
        "feedback_api_pagination.md",
        -40,
        """---
name: feedback_api_pagination
description: Public list endpoints use cursor pagination
type: feedback
created: {d-40}
updated: {d-40}
---

Public list endpoints use cursor pagination (`?cursor=`), not offset pagination.

**Why:** Offset pages skipped rows while invoices were being inserted.

**How to apply:** Return `next_cursor`; cap `limit` at 200.
""",
    ),
    (
        "project_merge_freeze.md",
        -160,
        """---
name: project_merge_freeze
description: Merge freeze for the 3.2 release starts {d-150}
type: project
created: {d-160}
updated: {d-160}
expires_at: {d-140}
---

Merge freeze for the 3.2 release starts on {d-150}; only release blockers merge to main until it ships.

**Why:** QA needs a stable main for the App Store submission.

**How to apply:** Label blockers `release-blocker`; everything else waits on a branch.
""",
    ),
    (
        "project_stripe_migration.md",
        -150,
        """---
name: project_stripe_migration
description: Payment provider migration to Stripe owned by Wang Lei
type: project
created: {d-150}
updated: {d-110}
---

The migration from Adyen to Stripe is owned by Wang Lei; weekly sync on Thursdays.

**Why:** Wang Lei wrote the original Adyen integration.

**How to apply:** Ask Wang Lei about webhook mapping questions.
""",
    ),
    (
        "project_stripe_owner_change.md",
        -20,
        """---
name: project_stripe_owner_change
description: Stripe migration now owned by Chen Jing
type: project
created: {d-20}
updated: {d-20}
---

The Stripe migration is now owned by Chen Jing; Wang Lei moved to the risk team and only answers questions about the old Adyen code.

**Why:** Team reorganisation in the autumn.

**How to apply:** Send migration scheduling and sign-off questions to Chen Jing.
""",
    ),
    (
        "project_recall_deadline.md",
        -25,
        """---
name: project_recall_deadline
description: 召回模块下周四前跑通
type: project
created: {d-25}
updated: {d-25}
---

召回模块需要在下周四前跑通，产品要拿去演示。

**Why:** 这是本迭代的核心 milestone。

**How to apply:** 排优先级时先看是否影响召回模块。
""",
    ),
    (
        "project_invoice_v2.md",
        -70,
        """---
name: project_invoice_v2
description: Invoice v2 rollout to all tenants by the end of the quarter
type: project
created: {d-70}
updated: {d-70}
---

Invoice v2 (line-item tax) is rolled out tenant by tenant and must reach all tenants by the end of the quarter.

**Why:** The EU VAT change takes effect then.

**How to apply:** Check the rollout sheet before touching invoice rendering.
""",
    ),
    (
        "project_deploy_freeze.md",
        -12,
        """---
name: project_deploy_freeze
description: Deploy freeze for the year-end close starts next Thursday
type: project
created: {d-12}
updated: {d-12}
---

Deploy freeze for the year-end financial close starts next Thursday and lasts two weeks.

**Why:** Finance closes the books and needs stable invoice numbers.

**How to apply:** Ship anything risky before the freeze; hotfixes need a second approver.
""",
    ),
    (
        "project_oncall.md",
        -8,
        """---
name: project_oncall
description: On-call rotation is in PagerDuty, weekly handover on Monday
type: project
created: {d-8}
updated: {d-8}
---

On-call rotation lives in PagerDuty (schedule "Atlas billing"); handover is Monday 10:00.

**Why:** Two incidents were missed during handovers last month.

**How to apply:** Read the handover note before touching alerts.
""",
    ),
    (
        "project_load_test.md",
        -5,
        """---
name: project_load_test
description: Load test of the invoice API before the freeze, target 2,000 requests per second
type: project
created: {d-5}
updated: {d-5}
---

Load-test the invoice API before the deploy freeze; the target is 2,000 requests per second at p99 under 300 ms.

**Why:** Year-end invoicing triples the normal load.

**How to apply:** Use the k6 scripts in `loadtest/`.
""",
    ),
    (
        "reference_grafana.md",
        -170,
        """---
name: reference_grafana
description: API latency dashboard in Grafana
type: reference
created: {d-170}
updated: {d-170}
---

API latency dashboard: https://grafana.internal.example/d/api-latency — check it when touching request handling.
""",
    ),
    (
        "reference_grafana_cloud.md",
        -35,
        """---
name: reference_grafana_cloud
description: API latency dashboard moved to Grafana Cloud
type: reference
created: {d-35}
updated: {d-35}
---

The API latency dashboard moved to https://atlas.grafana.example.net/d/api-p99 after the Grafana Cloud migration; the grafana.internal URL now returns 404.
""",
    ),
    (
        "reference_linear.md",
        -160,
        """---
name: reference_linear
description: Billing bugs are tracked in Linear project BILL
type: reference
created: {d-160}
updated: {d-160}
---

Billing bugs are tracked in Linear, project BILL (https://linear.app/atlas/project/bill).
""",
    ),
    (
        "reference_runbook.md",
        -140,
        """---
name: reference_runbook
description: Incident runbook in Notion
type: reference
created: {d-140}
updated: {d-140}
---

Incident runbook: Notion › Engineering › Runbooks › Billing (https://notion.so/atlas/billing-runbook).
""",
    ),
    (
        "reference_sentry.md",
        -50,
        """---
name: reference_sentry
description: Sentry project for the billing API
type: reference
created: {d-50}
updated: {d-50}
---

Errors from the billing API go to Sentry project `atlas-billing` (https://sentry.example.io/atlas/billing).
""",
    ),
    (
        "reference_design_docs.md",
        -20,
        """---
name: reference_design_docs
description: 设计文档放在飞书知识库
type: reference
created: {d-20}
updated: {d-20}
---

设计文档放在飞书知识库「Atlas 计费」空间，评审纪要也在那里。
""",
    ),
    (
        "reference_staging.md",
        -15,
        """---
name: reference_staging
description: Staging environment and seeded test tenants
type: reference
created: {d-15}
updated: {d-15}
---

The staging environment and its seeded test tenants.
""",
    ),
    (
        "architecture_notes.md",
        -100,
        """---
name: architecture_notes
description: Billing service layout
type: architecture
created: {d-100}
---

The billing service is split into `api/`, `ledger/` and `render/`; the ledger owns all money arithmetic.
""",
    ),
    (
        "feedback_status_page.md",
        -80,
        """---
name: feedback_status_page
description: "Status page: update within 15 minutes" of an incident
type: feedback
---

Update the public status page within 15 minutes of declaring an incident.
""",
    ),
    (
        "feedback_old_lint_rule.md",
        -120,
        """---
name: feedback_old_lint_rule
description: Old golangci-lint preset (replaced by the strict preset)
type: feedback
status: archived
created: {d-150}
updated: {d-120}
---

Use the default golangci-lint preset.

**Why:** Faster CI.

**How to apply:** `golangci-lint run`.
""",
    ),
    (
        "session_notes.md",
        -3,
        """Notes from the pairing session: the webhook retries double-posted two invoices; fixed by idempotency keys.
""",
    ),
]

# Written by the agent after the last review, so the review queue shows them as new (uncommitted: the agent
# keeps writing while memtui is open). The secret is fake.
AFTER_REVIEW: list[tuple[str, str]] = [
    (
        "reference_payments_api.md",
        """---
name: reference_payments_api
description: Payments sandbox API key for local testing
type: reference
created: {d-2}
updated: {d-2}
---

Sandbox API for local testing: https://sandbox.payments.example/v1
Key: sk-demo0fakeA1b2C3d4E5f6G7h8I9j0KlmnOP (sandbox only)
""",
    ),
    (
        "feedback_small_prs_zh.md",
        """---
name: feedback_small_prs_zh
description: PR 控制在 400 行以内
type: feedback
created: {d-1}
updated: {d-1}
---

PR 改动控制在 400 行以内，重构和行为改动分开提。

**Why:** 大 PR 评审要好几天，还漏过一个计价 bug。

**How to apply:** 超过上限就拆成 stacked PR。
""",
    ),
]

MALFORMED_NAME = "feedback_broken_yaml.md"
MALFORMED = """---
name: feedback_broken_yaml
description: "Retry webhooks" three times: then alert
type: feedback
"""

INDEX_HEAD = """# Memory Index

- [User role](user_role.md) — senior backend engineer, Go veteran, new to React
- [Language](user_language.md) — 中文母语，技术讨论中英混用
- [Timezone](user_timezone.md) — Shanghai, standup 10:00
- [Editor](user_editor.md) — Neovim + tmux
- [Observability](user_observability.md) — cares about logs, metrics, tracing
- [Real DB in tests](feedback_testing_real_db.md) — integration tests hit real Postgres
- [不要 mock 数据库](feedback_no_mock_db_zh.md) — 集成测试连真实数据库
- [Direct writing](feedback_writing_direct.md) — plain, direct release notes
- [npm](feedback_use_npm.md) — npm and package-lock.json
- [bun](feedback_use_bun.md) — front end switched to bun
- [Commit messages](feedback_commit_english.md) — English, imperative
- [Commit subjects](feedback_commit_imperative.md) — imperative, under 72 chars
- [周报正式](feedback_weekly_report_formal.md) — 正式书面语
- [周报口语化](feedback_weekly_report_casual.md) — 直接说重点
- [Small PRs](feedback_small_prs.md) — under 400 changed lines
- [Error wrapping](feedback_error_wrapping.md) — fmt.Errorf with %w
- [评审先看测试](feedback_review_tests_first.md) — 先测试后实现
- [No trailing summary](feedback_no_trailing_summary.md) — stop when done
- [Migrations](feedback_migrations.md) — additive only
- [Feature flags](feedback_feature_flags.md) — Unleash, off by default
- [Log fields](feedback_log_fields.md) — snake_case keys
- [Timezones](feedback_timezones.md) — UTC in storage
- [Pagination](feedback_api_pagination.md) — cursor pagination
- [Status page](feedback_status_page.md) — within 15 minutes
- [Merge freeze](project_merge_freeze.md) — 3.2 release freeze
- [Stripe migration](project_stripe_migration.md) — owned by Wang Lei
- [Stripe owner](project_stripe_owner_change.md) — now Chen Jing
- [召回 deadline](project_recall_deadline.md) — 下周四前跑通
- [Invoice v2](project_invoice_v2.md) — all tenants by quarter end
- [Deploy freeze](project_deploy_freeze.md) — year-end close
- [On-call](project_oncall.md) — PagerDuty, Monday handover
- [Grafana](reference_grafana.md) — API latency dashboard
- [Grafana Cloud](reference_grafana_cloud.md) — dashboard moved
- [Linear BILL](reference_linear.md) — billing bugs
- [Runbook](reference_runbook.md) — Notion incident runbook
- [Sentry](reference_sentry.md) — atlas-billing project
- [设计文档](reference_design_docs.md) — 飞书知识库
- [Staging](reference_staging.md) — staging and test tenants
- [Architecture](architecture_notes.md) — service layout
- [Real DB in tests](feedback_testing_real_db.md) — mocks allowed for speed in integration tests
- [Payments webhook retries](feedback_webhook_retries.md) — retry policy for payment webhooks
- [Load test](project_load_test.md) — invoice API, 2,000 rps target before the deploy freeze; k6 scripts live in loadtest/, results go to the #billing-perf channel and the perf dashboard
"""

# The agent once pasted its session log into the index: 170 lines that push the last entries past Claude Code's
# 200-line budget.
SESSION_LOG_DAYS = 170
INDEX_TAIL = """
- [Old lint rule](feedback_old_lint_rule.md) — superseded lint preset
- [Broken YAML](feedback_broken_yaml.md) — webhook retries
"""
