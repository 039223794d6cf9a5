"""Word lists the similarity and conflict cues use: stop words, negations, change verbs, antonyms, scope words,
and a small Chinese→English glossary so a Chinese memory and its English paraphrase share concepts."""

from __future__ import annotations

STOPWORDS = frozenset(
    """
    a an the and or but if then than so of in on at to for from by with as is are was were be been being it its
    this that these those there here what which who whom whose when where why how all any each every some such
    into onto over under up down out about after before again further once very can could should would will shall
    may might must do does did doing done have has had having i me my we our you your he him his she her they them
    their theirs also just only own same too via per etc e.g i.e vs user user's users memory memories one two
    get gets got make makes made use uses used using it's that's don't doesn't won't isn't aren't
    why how apply rule note please always http https www com
    not no never nor none nothing don't doesn't didn't won't cannot can't shouldn't avoid without
    """.split()
)
"""Words that carry no subject. Negations are kept out of similarity but read separately as cues."""

ZH_STOP_CHARS = "的了是在和也都就要把被给让对与及或而并很还又再吧呢吗啊哦，。、；：！？“”‘’（）《》「」【】—…·"

NEGATIONS = frozenset(
    """not no never don't dont doesn't didn't won't cannot can't shouldn't mustn't avoid without stop stopped
    neither nor none nothing nobody anymore forbid forbidden disallow ban banned skip drop removed
    """.split()
)
ZH_NEGATIONS = ("不要", "别再", "别", "不再", "不用", "禁止", "避免", "无需", "不需要", "不能", "不许", "不得", "停止", "不", "没有", "勿", "取消")

CHANGE_CUES = (
    "switch to", "switched to", "switching to", "switch back", "moved to", "move to", "moves to", "migrated to",
    "migrate to", "replaced", "replaces", "instead of", "instead", "no longer", "anymore", "any more", "changed to",
    "changed", "change to", "now ", "from now on", "going forward", "lowered to", "raised to", "increased to",
    "reduced to", "cut to", "bumped to", "postponed", "moved", "pushed back", "brought forward", "cancelled",
    "canceled", "called off", "after all", "reversed", "retired", "deprecated", "dropped", "pulled out", "took over",
    "taken over", "handed over", "hands over", "new owner", "was wrong", "actually", "not allowed", "used to",
    "decommission", "was archived", "read-only", "returns 404", "shut down", "sunset", "no more", "shelved",
    "on hold", "paused", "scrapped", "abandoned", "discontinued", "superseded", "obsolete",
    "改为", "改用", "改成", "换成", "换用", "改到", "迁到", "迁移到", "不再", "取消", "现在", "以后", "今后", "接手",
    "推迟", "延期", "提前", "停用", "作废", "废弃", "已调", "调整为", "降到", "升到", "改了", "转岗", "下线", "不再用", "搁置", "暂停", "砍掉", "放弃",
)

ANTONYMS: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        ("polite formal formally courteous 正式 书面 礼貌 客气", "direct casual informal blunt 口语 口语化 随意 直接"),
        ("verbose detailed thorough long lengthy paragraph elaborate 详细 展开 长篇", "concise brief terse short one-line summary 简洁 简短 只给结论 一句话 结论"),
        ("tab tabs", "space spaces"),
        ("mock mocked mocking fake stub 模拟", "real live actual 真实"),
        ("ssr server-side", "static ssg 静态"),
        ("sync synchronous 同步", "async asynchronous 异步"),
        ("always 总是 每次", "never 从不 永远不"),
        ("round rounded rounding 取整", "cents exact 精确"),
        ("squash", "rebase merge-commit"),
        ("enable enabled 开启 打开", "disable disabled 关闭"),
        ("allow allowed permit 允许", "forbid forbidden disallow prohibited 禁止"),
        ("required mandatory must 必须", "optional 可选"),
        ("monorepo", "polyrepo"),
        ("light 浅色", "dark 深色"),
        ("english 英文 英语", "chinese 中文"),
        ("dynamic", "static"),
        ("public 公开", "private 私有"),
        ("before 之前", "after 之后"),
        ("more 多", "less fewer 少"),
        ("increase raise 提高 增加", "decrease lower reduce 降低 减少"),
        ("include 包含", "exclude 排除"),
        ("vegetarian vegan 素食", "meat fish salmon chicken 肉 鱼"),
        ("immediately immediate instantly inline 立即 马上 立刻", "later afterwards recap batch 稍后 事后"),
        ("aggressive risky 激进", "conservative cautious 保守 稳健"),
        ("remote online 远程 线上", "onsite in-person offline 现场 线下"),
        ("opt-in", "opt-out"),
        ("manual manually 手动", "automatic automatically automated 自动"),
        ("true 开启", "false"),
    )
)

SCOPE_CUES = (
    " only", "only ", "separate", "unlike", "except", "exception", "still ", "stays", "stay ", "remain", "(not ",
    "doesn't need", "don't need", "do not need", "is fine", "are fine", "may be", "may ", "can be", "even though",
    "not affected", "unaffected", "as well", "in addition", "also ", "on top of", "rather than the",
    "doesn't apply", "does not apply", "for now", "temporarily", "until", "while ", "this week", "covers for",
    "不受", "照常", "还是", "仍然", "仍", "单独", "另外", "除了", "只", "例外", "不影响", "也", "之外", "暂时", "期间",
)
"""Phrases that narrow or add to a rule instead of replacing it: the mark of a compatible pair."""

STRONG_SCOPE_CUES = frozenset(
    (" only", "only ", "separate", "unlike", "except", "exception", "still ", "stays", "stay ", "remain", "(not ",
     "doesn't need", "don't need", "do not need", "is fine", "are fine", "even though", "not affected", "unaffected",
     "doesn't apply", "does not apply", "temporarily", "covers for", "不受", "照常", "还是", "仍然", "单独", "除了",
     "例外", "不影响", "暂时")
)
"""The scope phrases that say outright that the other rule still holds."""

SCOPE_WORDS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "mobile web backend frontend desktop",
        "ios android",
        "staging production prod dev qa sandbox",
        "email chat phone ticket slack",
        "docs api tutorial reference marketing changelog blog",
        "legacy new existing old",
        "pc console steam switch ps5 xbox",
        "written speaking reading listening writing write speak read listen",
        "beginner intermediate advanced",
        "ablation main headline",
        "weekday weekend monday tuesday wednesday thursday friday saturday sunday",
        "raw aggregated aggregate daily monthly weekly annual yearly",
        "unit integration e2e end-to-end smoke",
        "internal external public private",
    )
)
"""Alternatives that mark different scopes of one rule (English; Chinese reaches them through the glossary).
A group lists words that exclude each other, never synonyms: "written" and "write" are one scope."""

# Chinese terms → English concept tokens (stemmed as the English tokenizer would), so that paraphrases across
# languages share tokens. General vocabulary of the domains agents write memories about.
GLOSSARY: dict[str, tuple[str, ...]] = {
    k: tuple(v.split())
    for k, v in {
        "测试": "test", "单元测试": "unit test", "集成测试": "integration test", "部署": "deploy", "上线": "launch release ship",
        "发布": "release", "版本": "version release", "回滚": "rollback", "合并": "merge", "冻结": "freeze",
        "分支": "branch", "主干": "main", "提交": "commit", "信息": "message", "代码": "code", "评审": "review",
        "审查": "review", "注释": "comment", "文档": "doc", "仓库": "repo", "依赖": "dependency", "安装": "install",
        "锁文件": "lockfile", "脚本": "script", "构建": "build", "缓存": "cache", "数据库": "database",
        "数据": "data", "数仓": "warehouse", "数据仓库": "warehouse", "迁移": "migration migrate", "表": "table",
        "日志": "log", "告警": "alert", "监控": "monitor", "看板": "dashboard", "仪表盘": "dashboard",
        "值班": "on-call", "延迟": "latency", "接口": "api", "服务": "service", "集群": "cluster",
        "密钥": "key secret", "令牌": "token", "轮换": "rotate", "权限": "permission", "安全": "security",
        "漏洞": "vulnerability", "负责人": "owner", "负责": "owner", "接手": "owner", "截止": "deadline due",
        "截止日期": "deadline due", "演示": "demo", "里程碑": "milestone", "迭代": "sprint iteration",
        "需求": "requirement", "优先级": "priority", "召回": "retrieval recall", "模块": "module", "链路": "pipeline",
        "前端": "frontend", "后端": "backend", "移动端": "mobile", "页面": "page", "组件": "component",
        "网页": "web", "生产": "production", "预发": "staging", "聊天": "chat", "电话": "phone", "教程": "tutorial",
        "阅读": "read", "听力": "listen", "内部": "internal", "外部": "external", "周末": "weekend", "工作日": "weekday",
        "初级": "beginner", "中级": "intermediate", "高级": "advanced", "集成": "integration",
        "用户": "user", "客户": "customer", "退款": "refund", "客服": "support", "工单": "ticket", "邮件": "email",
        "回复": "reply", "签名": "sign", "周报": "weekly report", "报告": "report", "写作": "write", "写": "write",
        "直接": "direct", "套话": "phrase cliche", "机器": "generate", "简洁": "concise brief", "详细": "detail",
        "正式": "formal", "口语": "speak conversation", "口语化": "casual", "语法": "grammar", "解释": "explain",
        "纠错": "correct correction", "错误": "mistake error", "打断": "interrupt", "日语": "japanese",
        "中文": "chinese", "英文": "english", "英语": "english", "韩语": "korean", "德语": "german", "单词": "word vocabulary",
        "练习": "practice", "学习": "learn", "课": "lesson", "课程": "course lesson", "考试": "exam", "雅思": "ielts",
        "目标": "goal target", "分": "score", "训练": "train workout", "拉伸": "stretch", "热身": "warm-up",
        "膝盖": "knee", "半月板": "meniscus knee", "冲击": "impact", "跑步": "run", "饮食": "diet", "素食": "vegetarian",
        "血糖": "glucose", "糖尿病": "diabetes", "手术": "surgery", "睡眠": "sleep", "预算": "budget", "收入": "income",
        "存款": "deposit savings", "储蓄": "savings", "投资": "invest investment", "风险": "risk", "税": "tax",
        "人民币": "rmb", "美元": "usd", "上海": "shanghai", "北京": "beijing", "工作": "work", "开发者": "developer",
        "开发": "develop developer", "资深": "senior", "熟悉": "familiar", "数据科学家": "data scientist",
        "科学家": "scientist", "偏好": "prefer preference", "喜欢": "like prefer", "活动": "event", "美术": "art",
        "资源": "asset", "关卡": "level", "游戏": "game", "玩家": "player", "赛季": "season", "学生": "student",
        "家长": "parent", "作业": "homework", "数学": "math", "测验": "quiz", "小测": "quiz", "总结": "summary",
        "种子": "seed", "随机": "random", "学习率": "learning rate", "实验": "experiment", "论文": "paper",
        "模型": "model", "评估": "evaluate", "验证集": "validation", "测试集": "test", "特征": "feature",
        "开关": "flag", "功能": "feature", "灰度": "rollout", "设计": "design", "规范": "guideline style",
        "颜色": "colour color", "字体": "font", "主题": "theme", "每周": "weekly", "每天": "daily", "每月": "monthly",
        "周四": "thursday", "周五": "friday", "周一": "monday", "会议": "meeting", "同步": "sync", "进度": "progress",
        "项目": "project", "跟踪": "track", "缺陷": "bug", "问题": "issue", "知识库": "wiki", "地址": "url address",
        "链接": "link", "在哪": "where", "位置": "location", "云": "cloud", "通勤": "commute", "播客": "podcast",
        "贡献者": "contributor", "维护者": "maintainer", "许可证": "license", "赞助": "sponsor funding",
        "使用": "use", "用": "use", "禁止": "forbid", "不用": "not", "不要": "not", "不再": "no longer",
        "定期": "time", "备份": "backup", "保留": "retain retention", "天": "day", "小时": "hour",
        "取消": "cancel", "推迟": "postpone delay", "延期": "postpone delay", "费用": "cost", "成本": "cost",
        "价格": "price", "付款": "payment", "支付": "payment", "订阅": "subscription", "语言": "language",
        "翻译": "translate translation", "模板": "template", "格式": "format", "标题": "title", "图表": "chart",
        "报表": "report", "周期": "period", "频率": "frequency", "分钟": "minute", "密码": "password",
        "账号": "account", "登录": "login", "加密": "encrypt", "恢复": "restore", "升级": "upgrade", "框架": "framework",
        "插件": "plugin", "配置": "config", "环境": "environment", "变量": "variable", "容器": "container",
        "镜像": "image", "节点": "node", "索引": "index", "查询": "query", "队列": "queue", "消息": "message",
        "任务": "task job", "调度": "schedule", "命令": "command", "终端": "terminal", "编辑器": "editor",
        "快捷键": "shortcut", "图片": "image", "视频": "video", "孩子": "child kid", "老师": "teacher", "成绩": "grade",
        "运动": "exercise sport", "游泳": "swim", "健身": "gym fitness", "体重": "weight", "早餐": "breakfast",
        "咖啡": "coffee", "茶": "tea", "医生": "doctor", "药": "medication", "过敏": "allergy", "旅行": "travel",
        "航班": "flight", "酒店": "hotel", "回答": "answer", "简短": "short brief", "提醒": "remind reminder",
        "计划": "plan", "要求": "require", "必须": "must", "不喜欢": "dislike", "讨厌": "dislike hate",
        "服务器": "server", "数据集": "dataset", "训练集": "train", "准确率": "accuracy", "延迟上线": "delay",
        "每周四": "thursday", "每周五": "friday", "周会": "meeting weekly", "日报": "daily report", "月报": "monthly report",
        "英文版": "english", "中文版": "chinese", "日文": "japanese", "法语": "french", "西班牙语": "spanish",
    }.items()
}
