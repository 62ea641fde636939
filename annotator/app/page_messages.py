"""The app's own messages (its pages, login, charts), in English and Chinese, registered
into the one table of ``pooling.i18n`` when ``annotator.app`` is imported."""

from __future__ import annotations

from pooling.i18n import register

MESSAGES: dict[str, dict[str, str]] = {
    # -- issue 25: the app's own words for errors whose command-line message names an
    # option (ui.message_of), the adjudication queue by status, agreement's caption
    "app_release_unresolved": {
        "en": "{count} candidates are unresolved (e.g. {query} / {chunk}): decide them on the "
        "Adjudication page, or tick “Leave unresolved candidates out” above to leave them "
        "out and count them in the manifest",
        "zh": "有 {count} 个候选尚未解决（例如 {query} / {chunk}）：请在“裁定”页面裁定，"
        "或勾选上方的“排除未解决的候选”，将其排除并在清单中计数",
    },
    "app_pool_exists": {
        "en": "pool '{name}' already exists; a pool keeps its name: add candidates to it with "
        "“Top up this pool”, or choose another name",
        "zh": "候选池“{name}”已存在；候选池名称不变：如需增加候选请用“为此候选池补充候选”，"
        "或换一个名称",
    },
    "app_eval_low_judged_folded": {
        "en": "warning: low Judged@k for {count} runs and groups (the list is below); "
        "unjudged items count as non-relevant, so their figures may be too low. To have them "
        "judged: on the Releases page, upload a run under “Coverage of a new run” and add its "
        "unjudged chunks to the pool",
        "zh": "警告：{count} 个运行结果与分组的 Judged@k 偏低（列表见下）；未标注项按不相关计，"
        "其数值可能偏低。如需补充标注：在“发布”页面的“新运行结果的覆盖情况”中上传运行结果，"
        "并把未标注的片段加入候选池",
    },
    "app_eval_low_judged_list": {
        "en": "Runs and groups with low Judged@k ({count})",
        "zh": "Judged@k 偏低的运行结果与分组（{count} 个）",
    },
    "app_eval_low_judged": {
        "en": "warning: low Judged@k for {run} [{group}]: {judged}; unjudged items count as "
        "non-relevant, so its figures may be too low. To have them judged: on the Releases "
        "page, upload this run under “Coverage of a new run” and add its unjudged chunks to "
        "the pool",
        "zh": "警告：{run} [{group}] 的 Judged@k "
        "偏低：{judged}；未标注项按不相关计，其数值可能偏低。如需补充标注：在“发布”页面的“新运行结果的覆盖情况”中上传此运行结果，并把未标注的片段加入候选池",
    },
    "col_query_text": {"en": "question", "zh": "问题"},
    "queue_count_all": {
        "en": "{shown} candidates shown, of which {count} need a decision",
        "zh": "显示 {shown} 个候选，其中 {count} 个需要裁定",
    },
    "versus_final_why": {
        "en": "Why these run higher than alpha: the final grades are made of the annotators' own "
        "grades (agreed ones, and the lead's decisions on the rest), so each annotator "
        "partly agrees with themself here; alpha compares annotators only with each other, "
        "and corrects for the agreement chance alone would give.",
        "zh": "为什么这些数值高于 alpha：最终等级本身来自标注者的打分（一致的打分，"
        "以及组长对其余的裁定），因此这里每位标注者部分是在与自己比较；"
        "alpha 只比较标注者彼此之间，并扣除了偶然一致的部分。",
    },
    "app_judge_base_url": {
        "en": "'{url}' is not a base URL to use: http(s)://host[:port]/path, without a user, "
        "password, query or fragment (a key goes in an environment variable, named in the "
        "field below)",
        "zh": "“{url}”不能用作基础 URL：应为 http(s)://主机[:端口]/路径，不含用户名、密码、查询参数或片段（密钥请放在环境变量中，在下方字段填写其名称）",
    },
    "candidate_status_disagree": {
        "en": "disagree",
        "zh": "有分歧",
    },
    "candidate_status_unsure": {
        "en": "unsure",
        "zh": "不确定",
    },
    "candidate_status_adjudicated": {
        "en": "decided by a lead",
        "zh": "组长已裁决",
    },
    "candidate_status_gold": {"en": "gold item", "zh": "金标准"},
    "candidate_status_agreed": {
        "en": "agreed",
        "zh": "一致",
    },
    "candidate_status_incomplete": {
        "en": "waiting for judgments",
        "zh": "等待更多标注",
    },
    "chart_statuses": {
        "en": "Judged candidates per query, by status",
        "zh": "各查询已标注候选的状态",
    },
    "chart_statuses_most": {
        "en": "The {shown} queries with the most candidates needing a decision are drawn, "
        "of {count} judged",
        "zh": "图中为需要裁定的候选最多的 {shown} 个查询（共 {count} 个已标注的查询）",
    },
    # -- security and integrity
    "upload_too_large": {
        "en": "{file}: larger than the {limit} MB an upload may hold (QRELS_UPLOAD_LIMIT_MB); "
        "nothing was read",
        "zh": "{file}：超过上传上限 {limit} MB（QRELS_UPLOAD_LIMIT_MB）；未读取任何内容",
    },
    "internal_error": {
        "en": "Something went wrong on the server (incident {incident}). Nothing more is "
        "shown here; the lead can find the details in the server's log under that id.",
        "zh": "服务器出错（事件编号 {incident}）。此处不显示详情；"
        "负责人可凭该编号在服务器日志中查到。",
    },
    # -- the app
    # -- charts and quality control
    "counted_at": {
        "en": "Counted at {time} UTC from the data as it stands.",
        "zh": "统计于 {time}（UTC），数据此后没有变化。",
    },
    "counted_before_changes": {
        "en": "Counted at {time} UTC; work has been recorded since, and is counted in once "
        "these figures are {seconds} s old.",
        "zh": "统计于 {time}（UTC）；此后又有新的记录，这些数字满 {seconds} 秒后会重新统计。",
    },
    "show_table": {"en": "Show the table behind this chart", "zh": "显示此图背后的数据表"},
    "section_team": {"en": "The team", "zh": "团队"},
    "section_annotators": {"en": "Per annotator", "zh": "各标注者"},
    "team_label": {"en": "(team)", "zh": "（团队）"},
    "label_unsure": {"en": "unsure", "zh": "不确定"},
    "per_label": {"en": "Times grouped by (UTC)", "zh": "时间分组（UTC）"},
    "period_hour": {"en": "hour", "zh": "小时"},
    "period_day": {"en": "day", "zh": "天"},
    "projected_finish": {
        "en": "At the pace of the last 7 days ({pace} candidates a day), every candidate has "
        "its judgments around {finish} UTC.",
        "zh": "按最近 7 天的速度（每天 {pace} 个候选），预计所有候选将在 {finish}（UTC）左右"
        "获得全部标注。",
    },
    "projection_none": {
        "en": "No candidate got its last judgment in the last 7 days: no finish to project.",
        "zh": "最近 7 天没有候选获得最后一份标注：无法预计完成时间。",
    },
    "projection_active": {
        "en": "An active pool chooses candidates as it goes: this is the finish of the ones "
        "chosen so far.",
        "zh": "主动建池会边标注边选择候选：此处预计的是目前已选候选的完成时间。",
    },
    "projection_done": {
        "en": "Every candidate has its judgments.",
        "zh": "所有候选都已获得全部标注。",
    },
    "chart_timeline": {
        "en": "Items judged per {period}, by annotator",
        "zh": "每{period}标注条目数（按标注者）",
    },
    "chart_completion": {
        "en": "Candidates with all their judgments over time; dashed: the projected finish",
        "zh": "已获得全部标注的候选随时间的变化；虚线为预计完成",
    },
    "chart_throughput": {
        "en": "Items per hour worked, and median seconds per judgment",
        "zh": "每工作小时标注条目数，以及每条标注的中位用时（秒）",
    },
    "chart_distribution": {
        "en": "Grades given: each annotator beside the team",
        "zh": "评分分布：各标注者与团队对比",
    },
    "chart_my_grades": {"en": "Your grades in this pool", "zh": "你在此候选池中的评分分布"},
    "chart_drift": {
        "en": "Mean grade per {period}: each annotator, and the team dashed",
        "zh": "每{period}平均等级：各标注者，虚线为团队",
    },
    "chart_alpha": {
        "en": "Krippendorff's alpha (ordinal) per group, with its 95% bootstrap interval",
        "zh": "各分组的 Krippendorff's alpha（有序），附 95% bootstrap 区间",
    },
    "chart_pairs": {
        "en": "{measure} per group and pair of annotators, with 95% bootstrap intervals",
        "zh": "各分组、各标注者对的{measure}，附 95% bootstrap 区间",
    },
    "measure_label": {"en": "Figure per pair", "zh": "标注者对的指标"},
    "measure_alpha": {"en": "alpha", "zh": "alpha"},
    "measure_percent": {"en": "percent agreement", "zh": "一致率"},
    "measure_unweighted": {"en": "Cohen's kappa", "zh": "Cohen's kappa"},
    "measure_linear": {"en": "linear weighted kappa", "zh": "线性加权 kappa"},
    "measure_quadratic": {"en": "quadratic weighted kappa", "zh": "二次加权 kappa"},
    "measure_binary_ge1": {"en": "kappa, relevant at grade ≥ 1", "zh": "kappa（等级 ≥ 1 为相关）"},
    "measure_binary_ge2": {"en": "kappa, relevant at grade ≥ 2", "zh": "kappa（等级 ≥ 2 为相关）"},
    "chart_systems": {
        "en": "Per system: candidates found, found by no other system, and its share of the "
        "relevant candidates judged so far",
        "zh": "各系统：找到的候选数、仅由该系统找到的候选数，及其在目前已判定相关候选中的占比",
    },
    "chart_combinations": {
        "en": "Candidates found by exactly these systems (manual:* is every annotator's search)",
        "zh": "恰好由这些系统共同找到的候选数（manual:* 为所有标注者的检索）",
    },
    "releases_none": {
        "en": "No release yet: the first one you create appears here.",
        "zh": "还没有发布：创建的第一个发布会显示在这里。",
    },
    "chart_releases": {
        "en": "Releases, oldest first: judged candidates per grade, and alpha",
        "zh": "各发布（由早到晚）：各等级的已定级候选数，以及 alpha",
    },
    "col_time": {"en": "time (UTC)", "zh": "时间（UTC）"},
    "col_per_hour": {"en": "items per hour worked", "zh": "每工作小时条目数"},
    "col_grade": {"en": "grade", "zh": "等级"},
    "col_count": {"en": "count", "zh": "数量"},
    "col_share": {"en": "share", "zh": "占比"},
    "col_mean_grade": {"en": "mean grade", "zh": "平均等级"},
    "col_completed": {"en": "completed then", "zh": "该时段完成"},
    "col_projected": {"en": "projected", "zh": "预计"},
    "col_group": {"en": "group", "zh": "分组"},
    "col_value": {"en": "value", "zh": "数值"},
    "col_low": {"en": "95% low", "zh": "95% 下限"},
    "col_high": {"en": "95% high", "zh": "95% 上限"},
    "col_undefined": {"en": "undefined because", "zh": "无法计算的原因"},
    "col_systems": {"en": "systems", "zh": "系统组合"},
    "col_size": {"en": "systems in it", "zh": "系统数"},
    "col_alpha": {"en": "alpha", "zh": "alpha"},
    "col_first": {"en": "first annotator's grade", "zh": "第一位标注者的等级"},
    "col_second": {"en": "second annotator's grade", "zh": "第二位标注者的等级"},
    "col_grade_0": {"en": "grade 0", "zh": "等级 0"},
    "col_grade_1": {"en": "grade 1", "zh": "等级 1"},
    "col_grade_2": {"en": "grade 2", "zh": "等级 2"},
    "col_grade_3": {"en": "grade 3", "zh": "等级 3"},
    "app_title": {"en": "qrels-studio", "zh": "qrels-studio 相关性标注"},
    "login_title": {"en": "Log in", "zh": "登录"},
    "login_name": {"en": "User name", "zh": "用户名"},
    "login_button": {"en": "Log in", "zh": "登录"},
    "login_failed": {
        "en": "Wrong user name or password, or the account is disabled.",
        "zh": "用户名或密码错误，或账户已停用。",
    },
    "logout": {"en": "Log out", "zh": "退出登录"},
    "logged_in_as": {
        "en": "Logged in as {name} ({role})",
        "zh": "当前用户：{name}（{role}）",
    },
    "refused": {
        "en": "This page is for leads only. Your account cannot open it.",
        "zh": "此页面仅供负责人使用，你的账户无权打开。",
    },
    "need_login": {"en": "Please log in first.", "zh": "请先登录。"},
    "page_label": {"en": "Label", "zh": "标注"},
    "page_my_progress": {"en": "My progress", "zh": "我的进度"},
    "page_team_progress": {"en": "Team progress", "zh": "团队进度"},
    "page_pools": {"en": "Pools", "zh": "候选池"},
    "pool_select": {"en": "Pool", "zh": "候选池"},
    "no_pools": {
        "en": "There is no pool to judge yet. A lead brings documents and questions in on the "
        "Data page, then builds one on the Pools page (“Build a pool”).",
        "zh": "还没有可标注的候选池。负责人先在“数据导入”页面导入文档和问题，"
        "再在“候选池”页面（“建立候选池”）建立。",
    },
    "all_done": {
        "en": "Nothing left for you in this pool. Thank you!",
        "zh": "这个候选池里已经没有需要你标注的内容了，谢谢！",
    },
    "query_notes": {"en": "Notes on this query", "zh": "查询说明"},
    "passage_from": {"en": "Passage · from: {title}", "zh": "片段 · 出自：{title}"},
    "show_context": {"en": "Show the passages before and after", "zh": "显示前后相邻片段"},
    "context_before": {"en": "Before", "zh": "前一段"},
    "context_after": {"en": "After", "zh": "后一段"},
    "context_none": {"en": "(none)", "zh": "（无）"},
    # -- gold items
    "gold_section": {"en": "Gold items", "zh": "金标条目"},
    "gold_explained": {
        "en": "Gold items are candidates whose grade a lead settled. They are mixed into each "
        "annotator's work at the rate below, look like any other item, and never change: "
        "Team progress shows how each annotator does on them.",
        "zh": "金标条目是由负责人确定了等级的候选。它们按下面的频率混入每位标注者的工作，"
        "看起来与其他条目无异，等级不会改变；“团队进度”显示每位标注者在金标上的表现。",
    },
    "gold_rate": {"en": "One gold item in", "zh": "每多少条插入 1 个金标"},
    "gold_floor": {
        "en": "Flag annotators below this kappa against gold",
        "zh": "与金标的 kappa 低于此值的标注者被标记",
    },
    "gold_min_seen": {
        "en": "Annotators see their own figures after this many gold items",
        "zh": "标注者看过多少个金标后可见自己的成绩",
    },
    "gold_show": {"en": "Show annotators their own figures", "zh": "向标注者显示其成绩"},
    "gold_save": {"en": "Save gold settings", "zh": "保存金标设置"},
    "gold_saved": {"en": "Gold settings saved.", "zh": "金标设置已保存。"},
    "gold_release": {"en": "Gold from an earlier release", "zh": "以往发布中的金标"},
    "gold_sample": {
        "en": "How many of its graded candidates (0: all)",
        "zh": "取其中多少个已评级候选（0 为全部）",
    },
    "gold_add_release": {"en": "Add as gold items", "zh": "添加为金标条目"},
    "gold_make": {"en": "Make this candidate a gold item", "zh": "将此候选设为金标条目"},
    "gold_is": {"en": "This candidate is a gold item.", "zh": "此候选是金标条目。"},
    "section_gold": {"en": "Gold checks", "zh": "金标检查"},
    "gold_no_kappa": {
        "en": "No kappa against gold yet: it needs gold items of more than one grade among "
        "those an annotator has met; what each has met so far is in the table",
        "zh": "尚无与金标的 kappa：标注者遇到的金标条目须包含不止一个等级；"
        "每人目前遇到的条目见下表",
    },
    "gold_team_line": {
        "en": "{items} gold items, one in {rate} of each annotator's items; flagged below a "
        "quadratic kappa of {floor} against gold (their judgments stay: you decide)",
        "zh": "共 {items} 个金标条目，每位标注者每 {rate} 条中插入 1 条；与金标的二次加权 kappa "
        "低于 {floor} 者被标记（其判断保留，由你决定）",
    },
    "chart_gold": {
        "en": "Quadratic kappa against gold per annotator, with 95% intervals; the floor "
        "({floor}) dashed",
        "zh": "每位标注者与金标的二次加权 kappa 及 95% 区间；虚线为下限（{floor}）",
    },
    "gold_flagged_names": {
        "en": "Below the floor: {names}",
        "zh": "低于下限：{names}",
    },
    "my_gold_title": {"en": "Your gold checks", "zh": "你的金标检查"},
    "my_gold_missed": {
        "en": "Gold items you graded otherwise: {count}. Each with the grade a lead settled "
        "and why: this is how the rubric is read.",
        "zh": "你判得不同的金标条目：{count} 个。每个都附有负责人确定的等级及理由："
        "评分标准就是这样理解的。",
    },
    "my_gold_item": {
        "en": "#{n}: you gave {given}, gold is {gold}",
        "zh": "第 {n} 个：你给了 {given}，金标为 {gold}",
    },
    "col_seen": {"en": "gold seen", "zh": "看过的金标"},
    "col_exact": {"en": "exact", "zh": "完全一致"},
    "col_within_one": {"en": "within one", "zh": "相差不超过 1"},
    "col_binary_ge1": {"en": "right side of 1", "zh": "1 级两侧正确"},
    "col_binary_ge2": {"en": "right side of 2", "zh": "2 级两侧正确"},
    "col_kappa": {"en": "kappa vs gold", "zh": "与金标的 kappa"},
    "col_flagged": {"en": "below the floor", "zh": "低于下限"},
    "unsure_button": {"en": "Unsure (u)", "zh": "不确定 (u)"},
    "skip_button": {"en": "Skip (s)", "zh": "跳过 (s)"},
    "gold_skipped": {"en": "skipped", "zh": "已跳过"},
    "previous_button": {"en": "← Back", "zh": "← 上一条"},
    "next_button": {"en": "Forward →", "zh": "下一条 →"},
    "back_to_current": {"en": "Back to the current item", "zh": "回到当前条目"},
    "not_saved": {
        "en": "That grade was already saved, or this item was released after a long pause; "
        "nothing was written twice.",
        "zh": "该等级已保存过，或此条目因长时间未操作已被释放；不会重复写入。",
    },
    "saved_grade": {"en": "Your grade: {grade}", "zh": "你的评分：{grade}"},
    "saved_unsure": {"en": "You marked this unsure", "zh": "你标为了不确定"},
    "reviewing": {
        "en": "Reviewing an earlier item ({index} of {total}). A new grade replaces yours; the "
        "old one stays in the history.",
        "zh": "正在查看之前的条目（第 {index} / {total} 条）。"
        "新的评分会取代原评分，原评分保留在历史中。",
    },
    "progress_query": {"en": "This query: {done} / {total}", "zh": "本查询：{done} / {total}"},
    # Of what this annotator can still judge (the others' full candidates are not theirs):
    # not the pool's size, which Team progress and qrels status give.
    "progress_pool": {
        "en": "Your share of this pool: {done} / {total}",
        "zh": "本候选池中你的部分：{done} / {total}",
    },
    "keys_help": {
        "en": "Keys: 0–3 grade · u unsure · s skip · n note · b back · f forward · Esc leaves "
        "the note",
        "zh": "快捷键：0–3 评分 · u 不确定 · s 跳过 · n 备注 · b 上一条 · f 下一条 · "
        "Esc 离开备注框",
    },
    "search_title": {"en": "Search the corpus", "zh": "检索语料"},
    "search_help": {
        "en": "Found evidence the pool missed? Search for it and add it to this query.",
        "zh": "发现候选池遗漏的证据？检索后可将其加入当前查询。",
    },
    "search_box": {"en": "Search words", "zh": "检索词"},
    "search_none": {"en": "No passage matches.", "zh": "没有匹配的片段。"},
    "add_to_pool": {"en": "Add to this query", "zh": "加入当前查询"},
    "added_to_pool": {
        "en": "Added: it will be judged like any other passage.",
        "zh": "已加入：它会像其他片段一样被标注。",
    },
    "my_progress_table": {
        "en": "Judged per query in pool '{pool}'",
        "zh": "候选池“{pool}”各查询的已标注数",
    },
    "col_query": {"en": "query", "zh": "查询"},
    "col_judged": {"en": "judged", "zh": "已标注"},
    "col_judged_at": {"en": "judged at", "zh": "标注时间"},
    "col_relevant_per_100": {"en": "relevant per 100 judged", "zh": "每标注 100 个的相关数"},
    "col_model_kappa": {"en": "model's kappa with people", "zh": "模型与人的 kappa"},
    "col_kappa_low": {"en": "kappa, 95% low", "zh": "kappa 95% 下限"},
    "col_kappa_high": {"en": "kappa, 95% high", "zh": "kappa 95% 上限"},
    "guide_title": {
        "en": "Guided by the model: relevant found and the model's agreement with people",
        "zh": "由模型引导：找到的相关数与模型和人的一致性",
    },
    "col_unsure": {"en": "unsure", "zh": "不确定"},
    "col_annotator": {"en": "annotator", "zh": "标注者"},
    "col_seconds": {"en": "median seconds", "zh": "中位用时（秒）"},
    "col_candidates": {"en": "candidates", "zh": "候选数"},
    "col_complete": {"en": "complete", "zh": "已完成"},
    "col_system": {"en": "system", "zh": "系统"},
    "col_found": {"en": "found", "zh": "找到"},
    "col_unique": {"en": "unique", "zh": "独有"},
    "build_pool_title": {"en": "Build a pool", "zh": "建立候选池"},
    "topup_title": {"en": "Top up this pool", "zh": "为此候选池补充候选"},
    "field_pool_name": {"en": "Pool name", "zh": "候选池名称"},
    "field_systems": {
        "en": "Systems (bm25, vector, rrf, combsum, combmnz, run:NAME)",
        "zh": "系统（bm25、vector、rrf、combsum、combmnz、run:名称）",
    },
    "field_depth": {"en": "Depth per system", "zh": "每个系统取前 K 个"},
    "field_encoder": {"en": "Encoder of the vector system", "zh": "vector 系统的编码器"},
    "encoder_tfidf_svd": {"en": "TF-IDF + SVD (built in)", "zh": "TF-IDF + SVD（内置）"},
    "encoder_st": {
        "en": "st: a sentence-transformers model folder on the server",
        "zh": "st：服务器上的 sentence-transformers 模型文件夹",
    },
    "encoder_openai": {
        "en": "openai: an OpenAI-compatible embeddings server",
        "zh": "openai：OpenAI 兼容的嵌入服务器",
    },
    "field_encoder_model": {
        "en": "Model: its folder (st:) or its name on the server (openai:)",
        "zh": "模型：其文件夹（st:）或其在服务器上的名称（openai:）",
    },
    "field_embeddings_url": {
        "en": "openai: base URL of the embeddings server (up to /v1)",
        "zh": "openai：嵌入服务器的基础 URL（到 /v1 为止）",
    },
    "field_active": {
        "en": "Active pooling (choose what to judge next from the judgments so far)",
        "zh": "主动建池（根据已有判断选择下一个要判断的候选）",
    },
    "field_budget": {"en": "Active: judgments per query at most", "zh": "主动：每个查询最多判断数"},
    "field_stop_below": {
        "en": "Active: stop a query below this many estimated relevant left",
        "zh": "主动：估计剩余相关数低于此值时停止该查询",
    },
    "col_chosen": {"en": "chosen / budget", "zh": "已选 / 预算"},
    "col_estimate": {"en": "estimated relevant left", "zh": "估计剩余相关数"},
    "col_state": {"en": "state", "zh": "状态"},
    "col_relevant": {"en": "relevant found", "zh": "已找到相关"},
    "field_overlap": {"en": "Judgments per candidate", "zh": "每个候选的独立标注数"},
    "build_button": {"en": "Build", "zh": "建立"},
    "topup_button": {"en": "Top up", "zh": "补充"},
    "page_adjudication": {"en": "Adjudication", "zh": "裁定"},
    "page_agreement": {"en": "Agreement", "zh": "一致性"},
    "page_releases": {"en": "Releases", "zh": "发布"},
    "policy_any": {"en": "any difference", "zh": "任何差异"},
    "policy_threshold": {"en": "different sides of grade 2", "zh": "分处等级 2 两侧"},
    "policy_gap2": {"en": "a gap of 2 or more", "zh": "相差 2 级及以上"},
    "filter_query": {"en": "Query", "zh": "查询"},
    "filter_slice": {"en": "Slice", "zh": "切片"},
    "filter_annotator": {"en": "Annotator", "zh": "标注者"},
    "filter_all": {"en": "(all)", "zh": "（全部）"},
    "hide_names": {"en": "Hide annotators' names", "zh": "隐藏标注者姓名"},
    "include_resolved": {
        "en": "Also show resolved candidates (to override)",
        "zh": "同时显示已解决的候选（用于改判）",
    },
    "queue_empty": {"en": "Nothing needs a decision.", "zh": "没有需要裁定的候选。"},
    "queue_count": {"en": "{count} candidates need a decision", "zh": "{count} 个候选需要裁定"},
    "queue_first": {
        "en": "The {shown} most severe are offered; filter by query, slice or annotator for others",
        "zh": "列出最严重的 {shown} 个；其他候选请按查询、切片或标注者筛选",
    },
    "grades_given": {"en": "Grades given", "zh": "已给出的评分"},
    "final_grade": {"en": "Final grade", "zh": "最终等级"},
    "decide_button": {"en": "Record decision", "zh": "记录裁定"},
    "decided": {
        "en": "Recorded: {query} / {chunk} → {grade}",
        "zh": "已记录：{query} / {chunk} → {grade}",
    },
    "current_decision": {
        "en": "Current decision: {grade} ({why})",
        "zh": "当前裁定：{grade}（{why}）",
    },
    "pairs_table": {
        "en": "Cohen's kappa per pair of annotators",
        "zh": "各标注者两两之间的 Cohen's kappa",
    },
    "confusion_pair": {"en": "Confusion of the pair", "zh": "查看混淆矩阵的标注者对"},
    "confusion_title": {
        "en": "Confusion: {a} (rows) × {b} (columns)",
        "zh": "混淆矩阵：{a}（行）× {b}（列）",
    },
    "versus_final": {
        "en": "Each annotator against the final grades (quadratic kappa), before and after "
        "adjudication",
        "zh": "各标注者与最终等级的一致性（二次加权 kappa），裁定前后对比",
    },
    "col_before": {"en": "before", "zh": "裁定前"},
    "col_after": {"en": "after", "zh": "裁定后"},
    "group_by": {"en": "Break down by", "zh": "分组方式"},
    "group_all": {"en": "all", "zh": "全部"},
    "group_slice": {"en": "slice", "zh": "切片"},
    "group_split": {"en": "split", "zh": "数据划分"},
    "col_measure": {"en": "measure", "zh": "指标"},
    "release_version": {"en": "Release version", "zh": "发布版本号"},
    "allow_unresolved": {"en": "Leave unresolved candidates out", "zh": "排除未解决的候选"},
    "create_release": {"en": "Create release", "zh": "创建发布"},
    "release_created": {
        "en": "Release {version} written to {folder}",
        "zh": "发布 {version} 已写入 {folder}",
    },
    "download_release": {"en": "Download {version} (zip)", "zh": "下载 {version}（zip）"},
    "coverage_title": {"en": "Coverage of a new run", "zh": "新运行结果的覆盖情况"},
    "coverage_release": {"en": "Release", "zh": "发布版本"},
    "coverage_run": {
        "en": "Run file (TREC, JSONL or CSV)",
        "zh": "运行结果文件（TREC、JSONL 或 CSV）",
    },
    "coverage_topup": {
        "en": "Add them to the pool chosen in the sidebar",
        "zh": "加入侧栏所选的候选池",
    },
    "col_pair": {"en": "pair", "zh": "标注者对"},
    "col_shared": {"en": "shared", "zh": "共同条目"},
    "col_agreement": {"en": "agreement", "zh": "一致率"},
    "col_version": {"en": "version", "zh": "版本"},
    "col_pool": {"en": "pool", "zh": "候选池"},
    "col_created": {"en": "created", "zh": "创建时间"},
    "col_graded": {"en": "graded", "zh": "已定级"},
    "pool_set_apart": {
        "en": "{pooled} candidates built, {apart} of them set apart: gold items, and an active "
        "pool's candidates not yet chosen, are not asked about",
        "zh": "共构建 {pooled} 个候选，其中 {apart} 个另行处理：金标准条目及主动候选池中尚未选中的"
        "候选不分配标注",
    },
    "pool_complete": {
        "en": "{complete} of {candidates} candidates have their {overlap} judgments",
        "zh": "{candidates} 个候选中已有 {complete} 个获得 {overlap} 份标注",
    },
    # -- the model judge (annotator.judge)
    "page_judge": {"en": "Judge", "zh": "模型评判"},
    "page_accounts": {"en": "Accounts", "zh": "账号"},
    "accounts_add_title": {"en": "Add an account", "zh": "添加账号"},
    "accounts_name": {"en": "Name", "zh": "名称"},
    "accounts_role": {"en": "Role", "zh": "角色"},
    "accounts_state": {"en": "State", "zh": "状态"},
    "accounts_add_button": {"en": "Add account", "zh": "添加账号"},
    "accounts_added": {
        "en": "Added {name}. Password (shown this once; hand it over, it is not kept): {password}",
        "zh": "已添加 {name}。密码（仅此一次显示，请转交，系统不保存明文）：{password}",
    },
    "accounts_title": {"en": "Accounts", "zh": "账号列表"},
    "accounts_state_active": {"en": "can log in", "zh": "可登录"},
    "accounts_state_disabled": {"en": "disabled", "zh": "已停用"},
    "accounts_state_no_login": {"en": "no login (a model judge)", "zh": "不可登录（模型评审）"},
    "accounts_choose": {"en": "Account", "zh": "账号"},
    "accounts_disable": {"en": "Disable (their sessions end)", "zh": "停用（其会话随即结束）"},
    "accounts_enable": {"en": "Enable again", "zh": "重新启用"},
    "accounts_reset": {"en": "New password", "zh": "重设密码"},
    "accounts_password_set": {
        "en": "New password for {name} (shown this once; their sessions ended): {password}",
        "zh": "{name} 的新密码（仅此一次显示；其会话已结束）：{password}",
    },
    # -- the lead's imports (annotator.app.data_imports)
    "page_data": {"en": "Data", "zh": "数据导入"},
    "data_documents_title": {"en": "Documents: a new corpus version", "zh": "文档：新的语料版本"},
    "data_documents_files": {
        "en": "A zip of a folder, or files (.md, .txt, .html, .pdf, .docx)",
        "zh": "文件夹的 zip 压缩包，或多个文件（.md、.txt、.html、.pdf、.docx）",
    },
    "data_corpus_version": {"en": "Corpus version name", "zh": "语料版本名称"},
    "data_chunk_size": {"en": "Chunk size (characters)", "zh": "片段长度（字符）"},
    "data_chunk_overlap": {"en": "Chunk overlap (characters)", "zh": "片段重叠（字符）"},
    "data_documents_button": {"en": "Import documents", "zh": "导入文档"},
    "data_queries_title": {"en": "Questions: a new query set", "zh": "问题：新的查询集"},
    "data_queries_file": {
        "en": "A question file (.txt one a line, .csv with a text column, .jsonl)",
        "zh": "问题文件（.txt 每行一条，.csv 含 text 列，.jsonl）",
    },
    "data_query_set": {"en": "Query set name", "zh": "查询集名称"},
    "data_queries_button": {"en": "Import questions", "zh": "导入问题"},
    "data_run_title": {"en": "A run: a system's rankings", "zh": "运行结果：一个系统的排序"},
    "data_run_file": {
        "en": "A run file (TREC, JSONL or CSV)",
        "zh": "运行结果文件（TREC、JSONL 或 CSV）",
    },
    "data_system": {"en": "System name", "zh": "系统名称"},
    "data_run_button": {"en": "Import run", "zh": "导入运行结果"},
    "data_versions": {
        "en": "In the database: corpus versions {corpora}; query sets {query_sets}.",
        "zh": "数据库中现有：语料版本 {corpora}；查询集 {query_sets}。",
    },
    "data_none": {"en": "none yet", "zh": "暂无"},
    "data_no_file": {"en": "Choose a file first.", "zh": "请先选择文件。"},
    "data_needs_versions": {
        "en": "Import documents and questions first: a run ranks a query set's questions "
        "over a corpus version.",
        "zh": "请先导入文档和问题：运行结果是某查询集的问题在某语料版本上的排序。",
    },
    "sample_title": {"en": "Draw a sample of queries", "zh": "抽取查询样本"},
    "sample_size_label": {
        "en": "How many queries people judge completely: a number (50) or a share (20%)",
        "zh": "人工完整标注的查询数：数目（50）或比例（20%）",
    },
    "sample_by_label": {"en": "Design", "zh": "抽样设计"},
    "sample_model_label": {
        "en": "Model judge (for the uncertainty design)",
        "zh": "模型评判账号（用于按不确定性抽样）",
    },
    "sample_why_label": {"en": "Why draw again", "zh": "为何重新抽样"},
    "sample_judged_note": {
        "en": "People have judged {judged} queries of this pool's sample: a new draw needs a "
        "reason, kept with it and shown with every estimate.",
        "zh": "此候选池的样本中已有 {judged} 条查询被人工标注：重新抽样须写明原因，"
        "原因随抽样保存并与每个估计一同显示。",
    },
    "sample_button": {"en": "Draw", "zh": "抽样"},
    "sample_members": {"en": "Queries drawn: {ids}", "zh": "抽中的查询：{ids}"},
    "upload_member_unsafe": {
        "en": "'{member}' is not a plain path inside the upload (absolute, '..', a drive or "
        "a backslash); nothing was imported",
        "zh": "“{member}”不是上传内容中的普通相对路径（绝对路径、“..”、盘符或反斜杠）；"
        "未导入任何内容",
    },
    "upload_member_link": {
        "en": "'{member}' is a link; a zip of documents may hold only files and folders",
        "zh": "“{member}”是链接；文档压缩包只能包含文件和文件夹",
    },
    "upload_member_twice": {
        "en": "'{member}' is given twice; nothing was imported",
        "zh": "“{member}”出现了两次；未导入任何内容",
    },
    "upload_member_unreadable": {
        "en": "'{member}' cannot be unpacked (damaged, encrypted or an unknown compression)",
        "zh": "“{member}”无法解压（已损坏、已加密或压缩方式未知）",
    },
    "upload_not_a_zip": {"en": "not a zip file, or a damaged one", "zh": "不是 zip 文件或已损坏"},
    "upload_too_many_members": {
        "en": "holds more than {limit} files; split it",
        "zh": "包含的文件超过 {limit} 个；请拆分",
    },
    "upload_unpacked_too_large": {
        "en": "unpacks to more than {limit} MB; nothing was imported",
        "zh": "解压后超过 {limit} MB；未导入任何内容",
    },
    "judge_run_title": {"en": "Run the judge on this pool", "zh": "在此候选池上运行评判"},
    "judge_model": {"en": "Model (as the server names it)", "zh": "模型（按服务器的命名）"},
    "judge_base_url_label": {
        "en": "Base URL of the OpenAI-compatible server (up to /v1)",
        "zh": "OpenAI 兼容服务器的基础 URL（到 /v1 为止）",
    },
    "judge_key_label": {
        "en": "Name of the environment variable holding the API key (none for a local server)",
        "zh": "保存 API 密钥的环境变量名（本地服务器可留空）",
    },
    "judge_key_help": {
        "en": "Only the variable's name: the key is read on the server and never shown here.",
        "zh": "只填变量名：密钥在服务器端读取，绝不会在此显示。",
    },
    "judge_concurrency": {"en": "Requests at a time", "zh": "并发请求数"},
    "judge_retries": {"en": "Retries after a failed attempt", "zh": "失败后重试次数"},
    "judge_timeout": {"en": "Time-out of a request (s)", "zh": "单次请求超时（秒）"},
    "judge_limit": {
        "en": "Candidates to ask about at most (0: all still open)",
        "zh": "最多询问的候选数（0：全部未完成的）",
    },
    "judge_start": {"en": "Start the judge", "zh": "开始评判"},
    "judge_started_page": {
        "en": "run {run} started; its progress shows below",
        "zh": "第 {run} 次运行已开始；进度显示在下方",
    },
    "judge_runs_title": {"en": "Runs on this pool", "zh": "此候选池上的运行"},
    "judge_runs_none": {
        "en": "No model has judged this pool yet.",
        "zh": "尚无模型评判过此候选池。",
    },
    "judge_progress": {
        "en": "run {run} ({model}): {done} of {todo} candidates, {failed} failed",
        "zh": "第 {run} 次运行（{model}）：已完成 {done}/{todo} 个候选，失败 {failed} 个",
    },
    "judge_silent": {
        "en": "run {run} has not been heard from since {time}, or its process has ended: "
        "starting a new run marks it failed",
        "zh": "第 {run} 次运行自 {time} 起没有任何更新，或其进程已结束："
        "开始新的运行时会将其标记为失败",
    },
    "judge_stop": {"en": "Stop run {run}", "zh": "停止第 {run} 次运行"},
    "judge_stop_asked": {
        "en": "run {run} stops after the answers in flight",
        "zh": "第 {run} 次运行将在进行中的回答返回后停止",
    },
    "judge_refresh": {"en": "Refresh", "zh": "刷新"},
    "judge_report_title": {"en": "Report", "zh": "报告"},
    "judge_choose": {"en": "Model and prompt", "zh": "模型与提示词"},
    "judge_figures": {"en": "Figures", "zh": "数据"},
    "judge_calibration_title": {
        "en": "Against the pool's final grades (the figures a calibration against a release of "
        "the pool gives)",
        "zh": "对照候选池的最终等级（与对照该候选池某个发布版本校准得到的数字相同）",
    },
    "judge_review_title": {"en": "For people to see", "zh": "需要人工查看"},
    "chart_judge_failures": {
        "en": "Failures by reason: attempts, and candidates left without a grade",
        "zh": "按原因统计的失败：失败尝试次数，及因此未定级的候选数",
    },
    "chart_judge_confusion": {
        "en": "The people's grade (rows) against the model's (columns)",
        "zh": "人工等级（行）对照模型等级（列）",
    },
    "col_failure": {"en": "reason of failure", "zh": "失败原因"},
    "col_attempts": {"en": "attempts", "zh": "尝试次数"},
    "col_people": {"en": "people's grade", "zh": "人工等级"},
    "col_model": {"en": "model's grade", "zh": "模型等级"},
    "col_why": {"en": "why", "zh": "原因"},
    "col_probability": {"en": "probability of its grade", "zh": "所给等级的概率"},
    "col_flags": {"en": "flags", "zh": "标记"},
    "col_reused": {"en": "reused from another pool", "zh": "复用自其他候选池"},
    "col_evidence": {"en": "evidence", "zh": "证据"},
    "col_detail": {"en": "detail", "zh": "详情"},
    "col_figure": {"en": "figure", "zh": "指标"},
    "col_run": {"en": "run", "zh": "运行"},
    "col_model_asked": {"en": "model asked for", "zh": "请求的模型"},
    "col_served_model": {"en": "model the server reported", "zh": "服务器报告的模型"},
    "col_prompt": {"en": "prompt (hash)", "zh": "提示词（哈希）"},
    "col_status": {"en": "status", "zh": "状态"},
    "col_started": {"en": "started", "zh": "开始时间"},
    "col_failed": {"en": "failed", "zh": "失败"},
    "col_not_asked": {"en": "not asked", "zh": "未询问"},
    "col_requests": {"en": "requests", "zh": "请求数"},
    "col_tokens_in": {"en": "tokens in", "zh": "输入 token"},
    "col_tokens_out": {"en": "tokens out", "zh": "输出 token"},
    "col_request_seconds": {"en": "seconds of requests", "zh": "请求耗时（秒）"},
    "col_run_seconds": {"en": "seconds of runs", "zh": "运行耗时（秒）"},
    "col_chunk": {"en": "chunk", "zh": "片段"},
    "col_reason_given": {"en": "the model's reason", "zh": "模型的理由"},
    # -- releases
    # -- evaluation
    "page_evaluate": {"en": "Evaluate", "zh": "评估"},
    # -- metric estimates from a model judge and a human sample
    "estimate_section": {
        "en": "Estimates from a model judge and the human sample",
        "zh": "基于模型评审与人工样本的估计",
    },
    "estimate_choose_model": {"en": "Model judge", "zh": "模型评审"},
    "eval_scoring": {"en": "Scoring the runs…", "zh": "正在为运行结果评分…"},
    "eval_estimating": {"en": "Estimating with the model judge…", "zh": "正在用模型评审估计…"},
    "estimate_off": {"en": "(no estimates)", "zh": "（不估计）"},
    "estimate_differences": {
        "en": "Estimated differences from the baseline",
        "zh": "与基线之差的估计",
    },
    # -- pools and retrieval (more)
    # -- carrying judgments across a chunking change
    "col_mapping": {"en": "mapping", "zh": "映射类别"},
    "col_judged_release": {"en": "judged in the release", "zh": "发布中已定级"},
    "col_re_judged": {"en": "re-judged", "zh": "已重新标注"},
    "col_reason": {"en": "why not mapped", "zh": "未映射原因"},
    "col_document": {"en": "document", "zh": "文档"},
    "col_old_chunk": {"en": "released chunk", "zh": "发布中的片段"},
    "col_new_chunk": {"en": "chunk here", "zh": "此处片段"},
    "col_released_grade": {"en": "released grade", "zh": "发布等级"},
    "col_share_old": {"en": "share of released chunk", "zh": "占发布片段比例"},
    "col_share_new": {"en": "share of chunk here", "zh": "占此处片段比例"},
    "carry_documents_title": {"en": "Judged documents not mapped", "zh": "未映射的已标注文档"},
    "carry_mappings_title": {
        "en": "Every mapping (lead only: the released grades are shown here)",
        "zh": "全部映射（仅负责人可见：此处显示发布等级）",
    },
    "carry_section": {
        "en": "Carried across a chunking change",
        "zh": "跨切分变化迁移的标注",
    },
    "accept_carried": {
        "en": "Accept carried 'same text' grades nobody re-judged (dev queries only)",
        "zh": "接受无人重新标注的“文本相同”迁移等级（仅 dev 查询）",
    },
    # -- the labeling page's keys (issue 20)
    "grade_short_0": {"en": "Irrelevant", "zh": "不相关"},
    "grade_short_1": {"en": "On topic", "zh": "相关但无据"},
    "grade_short_2": {"en": "Key evidence", "zh": "关键证据"},
    "grade_short_3": {"en": "Answers", "zh": "直接回答"},
    "unsure_word": {"en": "unsure", "zh": "不确定"},
    "key_not_applied": {
        "en": "Key not applied: the passage was changing or had only just appeared, this "
        "item was already saved, or the page was connecting to the server again. Nothing "
        "was written.",
        "zh": "按键未生效：段落正在更换或刚刚出现、该条目已保存，或页面正在重新连接服务器。"
        "没有写入任何内容。",
    },
    "revised_grade": {
        "en": "Saved {new} on earlier item {index}, replacing {old} (kept in the history). "
        "Back at the current item.",
        "zh": "已将之前第 {index} 条改为 {new}，取代原来的 {old}（原评分保留在历史中）。"
        "已回到当前条目。",
    },
}

register(MESSAGES)
