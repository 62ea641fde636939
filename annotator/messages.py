"""The messages of ``annotator``'s rooms that more than one of them shows (the domain
services, and what the app and the CLI both say), in English and Chinese, registered into
the one table of ``pooling.i18n`` (which holds the keys of ``pooling`` and ``storage``).
``annotator``'s package imports this module, so every room finds them."""

from __future__ import annotations

from pooling.i18n import register

MESSAGES: dict[str, dict[str, str]] = {
    # -- imports (the CLI's and the app's)
    "imported_corpus": {
        "en": "imported corpus version '{name}': {documents} documents, {chunks} chunks "
        "({empty} empty; chunking: {chunking})",
        "zh": "已导入语料版本“{name}”：{documents} 篇文档，{chunks} 个片段"
        "（空文本 {empty} 个；切分：{chunking}）",
    },
    "imported_queries": {
        "en": "imported query set '{name}': {queries} queries ({dev} dev, {test} test, "
        "{unanswerable} unanswerable)",
        "zh": "已导入查询集“{name}”：{queries} 条查询（dev {dev} 条，test {test} 条，"
        "无答案 {unanswerable} 条）",
    },
    "imported_run": {
        "en": "imported run of system '{name}': {entries} results for {queries} queries",
        "zh": "已导入系统“{name}”的运行结果：{queries} 条查询共 {entries} 条结果",
    },
    "unchanged": {
        "en": "{kind} '{name}' is already in the database with identical content: nothing to do",
        "zh": "{kind}“{name}”已存在且内容相同：无需导入",
    },
    # -- pools and systems
    "depth_or_budget": {
        "en": "give exactly one of --depth and --budget (--strategy active takes --budget)",
        "zh": "--depth 与 --budget 须且只能指定一个（--strategy active 使用 --budget）",
    },
    "stop_below_negative": {
        "en": "--stop-below must be 0 or more, got {value}",
        "zh": "--stop-below 不能小于 0，得到 {value}",
    },
    "pool_built": {
        "en": "pool '{name}': {added} candidates for {queries} queries "
        "(judgments per candidate: {overlap})",
        "zh": "候选池“{name}”：{queries} 条查询共 {added} 个候选"
        "（每个候选需 {overlap} 份独立标注）",
    },
    "pool_topped_up": {
        "en": "pool '{name}': {added} new candidates for {queries} queries; "
        "{already_in_pool} were in the pool already, {already_judged} already judged",
        "zh": "候选池“{name}”：为 {queries} 条查询新增 {added} 个候选；"
        "{already_in_pool} 个已在池中，{already_judged} 个已有标注",
    },
    "active_summary": {
        "en": "active pooling (budget {budget} per query, stop below {below} estimated "
        "relevant left): {chosen} chosen, {judged} judged, {relevant} relevant; queries going "
        "on {open}, stopped by budget {budget_spent}, by estimate {estimate}, with nothing "
        "left {exhausted}; sampled queries (judged completely, past the budget) {sampled}, "
        "{complete} of them complete",
        "zh": "主动建池（每个查询预算 {budget}，估计剩余相关数低于 {below} 即停止）：已选 "
        "{chosen}，已判 {judged}，相关 {relevant}；进行中查询 {open}，因预算停止 "
        "{budget_spent}，因估计停止 {estimate}，候选已用尽 {exhausted}；抽样查询（完整判断，"
        "不受预算限制）{sampled}，其中已完成 {complete}",
    },
    "guide_needs_active": {
        "en": "pool {name} is not an active pool: only active pools can be guided by a model "
        "(--strategy active --budget B)",
        "zh": "池 {name} 不是主动池：只有主动池可由模型引导（--strategy active --budget B）",
    },
    "guide_unknown": {
        "en": "no account {name}: name a model account (qrels judge, or import judgments "
        "--kind model --annotator NAME)",
        "zh": "没有账户 {name}：请给出模型账户（qrels judge，或 import judgments --kind model "
        "--annotator NAME）",
    },
    "guide_not_model": {
        "en": "{name} is a person's account: only a model's grades can guide a pool",
        "zh": "{name} 是人的账户：只有模型的评分可以引导池",
    },
    "guide_summary": {
        "en": "guided by {model}: {per_hundred} relevant found per 100 judged candidates; the "
        "model's agreement with people kappa {kappa}{interval} over {items} candidates; "
        "estimated relevant left {left}",
        "zh": "由 {model} 引导：每判断 100 个候选找到相关 {per_hundred} 个；模型与人的一致性 "
        "kappa {kappa}{interval}（基于 {items} 个候选）；估计剩余相关 {left}",
    },
    "active_built": {
        "en": "active pooling: those are what it may reach; at most {budget} per query are "
        "chosen, one at a time, as judgments arrive (qrels pool show NAME --per-query)",
        "zh": "主动建池：以上是可选范围；每个查询随判断逐个选出，最多 {budget} 个"
        "（qrels pool show NAME --per-query 查看）",
    },
    "active_per_query": {
        "en": "  query\tchosen/budget\tjudged\trelevant\testimated left\tstate",
        "zh": "  查询\t已选/预算\t已判\t相关\t估计剩余\t状态",
    },
    "active_open": {"en": "going on", "zh": "进行中"},
    "active_budget": {"en": "stopped: budget spent", "zh": "已停止：预算用完"},
    "active_estimate": {"en": "stopped: few relevant left", "zh": "已停止：估计剩余相关很少"},
    "active_exhausted": {"en": "stopped: no candidates left", "zh": "已停止：候选已用尽"},
    "active_complete": {
        "en": "sampled: every candidate asked about",
        "zh": "抽样查询：所有候选均已送判",
    },
    # -- security and integrity
    "release_version_invalid": {
        "en": "'{version}' is not a release version: use letters, digits, '.', '_' and '-', "
        "starting with a letter or digit (at most 100 characters)",
        "zh": "“{version}”不是有效的发布版本：只能使用字母、数字、“.”、“_”和“-”，"
        "并以字母或数字开头（最多 100 个字符）",
    },
    # -- accounts
    "password_short": {
        "en": "the password must have at least {length} characters",
        "zh": "密码至少需要 {length} 个字符",
    },
    "not_yours": {
        "en": "this item is held by another annotator: nothing was saved",
        "zh": "该条目由其他标注者持有：没有保存任何内容",
    },
    # -- the app
    # -- charts and quality control
    "what_measure": {"en": "agreement measure", "zh": "一致性指标"},
    "what_period": {"en": "period", "zh": "时间单位"},
    "what_search": {"en": "search", "zh": "检索词"},  # a search of the corpus, typed
    "login_password": {"en": "Password", "zh": "密码"},
    "grade_button": {"en": "{grade} · {label}", "zh": "{grade} · {label}"},
    # -- gold items
    "gold_settings_invalid": {
        "en": "gold settings: the rate must be at least 2, the floor between -1 and 1, "
        "the gold seen before figures at least 1 (got {rate}, {floor}, {seen})",
        "zh": "金标设置：插入频率至少为 2，下限在 -1 与 1 之间，显示成绩前至少看过 1 个"
        "（实际为 {rate}、{floor}、{seen}）",
    },
    "gold_other_versions": {
        "en": "release '{release}' is of {theirs}; pool '{pool}' is of {ours}: gold must be "
        "of the same query set and corpus version",
        "zh": "发布“{release}”属于 {theirs}；候选池“{pool}”属于 {ours}：金标须来自相同的"
        "查询集与语料版本",
    },
    "gold_not_adjudicated": {
        "en": "({query}, {chunk}) has no lead's decision: only adjudicated candidates become gold",
        "zh": "（{query}，{chunk}）尚无负责人裁定：只有已裁定的候选才能成为金标",
    },
    "rubric": {"en": "Rubric", "zh": "标注规则"},
    "active_title": {"en": "Active pooling: where each query stands", "zh": "主动建池：各查询进度"},
    "alpha_line": {
        "en": "Krippendorff's alpha (ordinal): {value}",
        "zh": "Krippendorff's alpha（有序）：{value}",
    },
    "coverage_unjudged": {
        "en": "{count} unjudged chunks in the top {k}",
        "zh": "前 {k} 名中有 {count} 个未标注片段",
    },
    # -- grades, judgments, adjudication
    "account_not_yourself": {
        "en": "you cannot disable your own account ({name}): another lead can",
        "zh": "不能停用你自己的账号（{name}）：可由其他组长操作",
    },
    "rubric_dir_missing": {
        "en": "QRELS_RUBRIC_DIR names {path}, which is not a folder of rubrics "
        "(qrels rubric new writes one)",
        "zh": "QRELS_RUBRIC_DIR 指向的 {path} 不是评分标准文件夹（可用 qrels rubric new 生成）",
    },
    "rubric_grades_missing": {
        "en": "{file}: no heading for grade {grades}; each grade needs a line '## N — label' "
        "(the grade buttons and the model judge read them)",
        "zh": "{file}：缺少等级 {grades} 的标题；每个等级都需要一行“## N — 标签”"
        "（评分按钮和模型评审读取这些标签）",
    },
    "rubric_version_name": {
        "en": "rubric version '{version}' is not a plain name (letters, digits, '.', '_', '-')",
        "zh": "评分标准版本“{version}”不是简单名称（只能用字母、数字、“.”、“_”、“-”）",
    },
    "rubric_version_exists": {
        "en": "{path} exists already: a rubric version is never rewritten (choose --version)",
        "zh": "{path} 已存在：评分标准版本一经写出不再改写（请用 --version 另选版本）",
    },
    "rubrics_missing": {
        "en": "rubrics/ not found beside the packages or in share/qrels-studio",
        "zh": "在程序包旁或 share/qrels-studio 中找不到 rubrics/",
    },
    "what_kappa": {"en": "kappa", "zh": "kappa 类型"},
    "figure_undefined": {"en": "undefined: {reason}", "zh": "无法计算：{reason}"},
    "reason_few_shared": {"en": "fewer than two shared items", "zh": "共同条目少于两个"},
    "reason_one_grade": {
        "en": "only one grade in use: chance agreement is certain",
        "zh": "只用到一个等级：偶然一致的概率为 1",
    },
    "reason_no_pairs": {"en": "no item has two judgments", "zh": "没有条目有两份标注"},
    "reason_no_shared": {"en": "no shared items", "zh": "没有共同条目"},
    "calibration_head": {
        "en": "{judge} against {release}: {shared} shared candidates",
        "zh": "{judge} 对照 {release}：共同候选 {shared} 个",
    },
    # -- the model judge (annotator.judge)
    "judge_prompt_not_object": {
        "en": "a prompt file holds one JSON object (see `qrels judge prompt`)",
        "zh": "提示词文件应为一个 JSON 对象（参见 `qrels judge prompt`）",
    },
    "judge_prompt_text": {
        "en": "field '{part}' must be a text that is not empty",
        "zh": "字段“{part}”必须是非空文本",
    },
    "judge_prompt_placeholders": {
        "en": "field '{part}' must hold exactly these placeholders, each once: {wanted}",
        "zh": "字段“{part}”必须恰好各包含一次这些占位符：{wanted}",
    },
    "judge_setting": {
        "en": "judge setting {name} cannot be {value}",
        "zh": "评判设置 {name} 不能为 {value}",
    },
    "judge_model_name": {
        "en": "'{model}' is not a model name to send (1-200 characters, no control characters)",
        "zh": "“{model}”不是可发送的模型名（1-200 个字符，不含控制字符）",
    },
    "judge_already_running": {
        "en": "a run of {model} with this prompt on pool {pool} is still going: stop it first "
        "(Judge page) or wait for it",
        "zh": "候选池 {pool} 上使用该提示词的 {model} 评判仍在运行："
        "请先停止它（模型评判页面）或等待其结束",
    },
    "judge_no_runs": {
        "en": "{model} has not been run on pool {pool} (with this prompt)",
        "zh": "尚未在候选池 {pool} 上（以该提示词）运行过 {model}",
    },
    "judge_failure_invalid_json": {"en": "not valid JSON", "zh": "不是有效的 JSON"},
    "judge_failure_not_an_object": {"en": "not a JSON object", "zh": "不是 JSON 对象"},
    "judge_failure_grade_missing": {"en": "no grade", "zh": "没有等级"},
    "judge_failure_grade_out_of_range": {
        "en": "grade not an integer 0-3",
        "zh": "等级不是 0-3 的整数",
    },
    "judge_failure_reason_missing": {"en": "no reason", "zh": "没有理由"},
    "judge_failure_evidence_missing": {"en": "no evidence", "zh": "没有证据"},
    "judge_failure_evidence_not_in_passage": {
        "en": "evidence not found in the passage (misquoted)",
        "zh": "证据在片段中找不到（引用不实）",
    },
    "judge_failure_evidence_too_short": {
        "en": "evidence too short to show anything (under 6 letters or digits, 3 Chinese "
        "characters)",
        "zh": "证据太短，说明不了什么（不足 6 个字母或数字、3 个汉字）",
    },
    "judge_failure_empty_answer": {"en": "empty answer", "zh": "回答为空"},
    "judge_failure_truncated": {
        "en": "answer cut off (max tokens)",
        "zh": "回答被截断（达到最大 token 数）",
    },
    "judge_failure_refused_by_model": {"en": "the model refused", "zh": "模型拒绝回答"},
    "judge_failure_http_429": {"en": "HTTP 429 (rate limited)", "zh": "HTTP 429（被限流）"},
    "judge_failure_http_5xx": {"en": "HTTP 5xx (server error)", "zh": "HTTP 5xx（服务器错误）"},
    "judge_failure_http_4xx": {"en": "HTTP 4xx (request refused)", "zh": "HTTP 4xx（请求被拒绝）"},
    "judge_failure_timeout": {"en": "timed out", "zh": "超时"},
    "judge_failure_connection": {"en": "could not connect", "zh": "无法连接"},
    "judge_failure_redirect": {
        "en": "a redirect, not followed (the key goes only to the address given)",
        "zh": "重定向，未跟随（密钥只发往所给地址）",
    },
    "judge_failure_too_large": {"en": "answer too large", "zh": "回答过大"},
    "judge_failure_bad_response": {
        "en": "not a chat completion",
        "zh": "不是对话补全格式的响应",
    },
    "judge_flag_override": {
        "en": "tells the model to ignore its instructions",
        "zh": "要求模型无视其指令",
    },
    "judge_flag_grade_request": {"en": "asks for a grade", "zh": "索要某个等级"},
    "judge_flag_persona": {"en": "tries to change the model's role", "zh": "试图改变模型的角色"},
    "judge_flag_role_marker": {
        "en": "holds chat role markers",
        "zh": "含有对话角色标记",
    },
    "judge_flag_delimiter": {
        "en": "holds the prompt's delimiters",
        "zh": "含有提示词的分隔标记",
    },
    "judge_status_running": {"en": "running", "zh": "运行中"},
    "judge_status_done": {"en": "done", "zh": "已完成"},
    "judge_status_stopped": {"en": "stopped", "zh": "已停止"},
    "judge_status_failed": {"en": "failed", "zh": "失败"},
    "judge_report_head": {
        "en": "{model} on pool {pool}, as {judge}; prompt {version} ({hash}), rubric {rubric}",
        "zh": "{model} 评判候选池 {pool}，记为 {judge}；"
        "提示词 {version}（{hash}），标注规则 {rubric}",
    },
    "judge_report_served": {
        "en": "model reported by the server: {models}",
        "zh": "服务器报告的模型：{models}",
    },
    "judge_report_served_several": {
        "en": "the server reported several models: the grades are not from one fixed model",
        "zh": "服务器报告了多个模型：这些等级并非出自同一个固定模型",
    },
    "judge_report_pool_grades": {
        "en": "the final grades of pool {pool}",
        "zh": "候选池 {pool} 的最终等级",
    },
    "judge_report_no_calibration": {
        "en": "no calibration yet: people have graded none of the candidates the model graded",
        "zh": "暂无校准：模型定级的候选还没有任何一个经过人工定级",
    },
    "judge_report_no_probabilities": {
        "en": "the server sent no token probabilities: the least sure grades cannot be listed",
        "zh": "服务器未返回 token 概率：无法列出最没有把握的等级",
    },
    "judge_why_failed": {"en": "failed", "zh": "失败"},
    "judge_why_misquoted": {"en": "misquoted", "zh": "引用不实"},
    "judge_why_flagged": {"en": "flagged", "zh": "已标记"},
    "judge_why_uncertain": {"en": "least sure", "zh": "最没把握"},
    # -- releases
    # -- evaluation
    "what_level": {"en": "level", "zh": "粒度"},
    "what_split": {"en": "split", "zh": "数据划分"},
    "threshold_range": {
        "en": "the relevance threshold must be a grade from 1 to 3, got {value}",
        "zh": "相关性阈值必须是 1 到 3 之间的等级，实际为 {value}",
    },
    "run_ids_documents": {
        "en": "run '{run}': {count} of its {total} ids are document ids of corpus version "
        "'{corpus}', not chunk ids (e.g. '{example}'): it ranks documents, which chunk-level "
        "qrels would score 0; evaluate it against the document-level qrels: "
        "qrels evaluate --level doc",
        "zh": "运行结果“{run}”：{total} 个 id 中有 {count} 个是语料版本“{corpus}”的文档 id 而非"
        "片段 id（例如“{example}”）：它排序的是文档，按片段级 qrels 只会得 0 分；"
        "请按文档级 qrels 评估：qrels evaluate --level doc",
    },
    "run_ids_mixed": {
        "en": "run '{run}': its {total} ids mix chunk ids and document ids of corpus version "
        "'{corpus}'; a run ranks either chunks (--level chunk) or documents (--level doc)",
        "zh": "运行结果“{run}”：{total} 个 id 混合了语料版本“{corpus}”的片段 id 和文档 id；"
        "一个运行结果只能排序片段（--level chunk）或文档（--level doc）",
    },
    "run_ids_unknown": {
        "en": "run '{run}': {count} of its {total} ids are in no corpus version of this release "
        "(corpus version '{corpus}'), e.g. '{example}': was it made on another corpus or "
        "chunking?",
        "zh": "运行结果“{run}”：{total} 个 id 中有 {count} 个不属于本发布的语料版本“{corpus}”"
        "（例如“{example}”）：它是否来自另一份语料或另一种切分？",
    },
    "run_queries_unknown": {
        "en": "run '{run}': none of its {count} queries is in this release (e.g. '{example}'): "
        "was it run on another query set?",
        "zh": "运行结果“{run}”：其 {count} 条查询都不在本发布中（例如“{example}”）："
        "它是否基于另一个查询集？",
    },
    "run_queries_unknown_strict": {
        "en": "run '{run}' ranks {count} queries that are not in this release (e.g. "
        "'{example}'), refused by --strict (without it they are ignored, with a warning)",
        "zh": "运行结果“{run}”含有 {count} 条不在本发布中的查询（例如“{example}”），"
        "--strict 下拒绝评测（不加此选项时忽略这些查询并给出警告）",
    },
    "evaluate_no_runs": {"en": "give at least one run", "zh": "请至少提供一个运行结果"},
    "run_name_repeated": {
        "en": "two runs are named '{name}' ({first} and {second}): name each apart with "
        "--name, one per --run in order (a run is named by --name, else by its TREC tag "
        "column when it has one tag, else by its file name)",
        "zh": "两个运行结果同名“{name}”（{first} 与 {second}）：请用 --name 为每个 --run 依次"
        "命名（运行结果的名称依次取 --name、只有一个 TREC 标签时的标签列、文件名）",
    },
    "gate_syntax": {
        "en": "gate check '{part}' is not 'metric>=number', optionally with @low or @high "
        "(e.g. ndcg@10>=-0.01, or ndcg@10>=-0.01@low on the lower end of the 95% interval)",
        "zh": "门禁条件“{part}”不是“指标>=数值”的形式，可带 @low 或 @high"
        "（例如 ndcg@10>=-0.01，或对 95% 区间下端检查的 ndcg@10>=-0.01@low）",
    },
    "gate_interval_needs_rounds": {
        "en": "a gate on an interval end (@low, @high) needs the bootstrap: --rounds must be "
        "at least 1",
        "zh": "对区间端点（@low、@high）的门禁需要 bootstrap：--rounds 至少为 1",
    },
    "gate_nothing_gated": {
        "en": "nothing to gate: every group has fewer than {min} counted test queries (the "
        "largest {largest}); lower --min-queries or pass --gate-small to gate small groups",
        "zh": "没有可门禁的分组：每个分组计入的 test 查询都少于 {min} 条（最多 {largest} 条）；"
        "请降低 --min-queries，或加 --gate-small 对小分组门禁",
    },
    "gate_needs_two_runs": {
        "en": "a gate compares a candidate with a baseline: give two runs or more "
        "(the first is the baseline)",
        "zh": "门禁是候选方案与基线的比较：请提供至少两个运行结果（第一个为基线）",
    },
    "gate_metric_missing": {
        "en": "the gate checks {metric}, which is not among the metrics evaluated",
        "zh": "门禁检查的 {metric} 不在评估的指标之中",
    },
    "gate_on_dev": {
        "en": "refusing to gate on the {split} split: tuning happens on dev, the gate on the "
        "frozen test split (pass --gate-on-dev to gate on {split} anyway)",
        "zh": "拒绝在 {split} 划分上做门禁：调参用 dev，门禁用冻结的 test 划分"
        "（如确需在 {split} 上门禁，请加 --gate-on-dev）",
    },
    "gate_no_queries": {
        "en": "no counted query in the {split} split to gate on",
        "zh": "{split} 划分中没有可计入评估的查询，无法做门禁",
    },
    "metric_def_recall": {
        "en": "Recall@k: the share of a query's relevant items (grade >= {t}) found in its top "
        "k; macro: the mean over queries; micro: all relevant found over all relevant",
        "zh": "Recall@k：查询的相关项（等级 >= {t}）中进入前 k 名的比例；宏平均：各查询的平均；"
        "微平均：所有查询找到的相关项之和除以相关项总数",
    },
    "metric_def_hit": {
        "en": "Hit@k: 1 when at least one relevant item (grade >= {t}) is in the top k, else "
        "0; equal to Recall@k only where a query has exactly one relevant item",
        "zh": "Hit@k：前 k 名中至少有一个相关项（等级 >= {t}）为 1，否则为 0；"
        "只有每个查询恰好一个相关项时才与 Recall@k 相等",
    },
    "metric_def_p": {
        "en": "P@k: the share of the top k that is relevant (grade >= {t})",
        "zh": "P@k：前 k 名中相关项（等级 >= {t}）所占比例",
    },
    "metric_def_mrr": {
        "en": "MRR(@k): 1 / the rank of the first relevant item (grade >= {t}; 0 when none "
        "is in the top k), averaged over queries",
        "zh": "MRR(@k)：第一个相关项（等级 >= {t}）排名的倒数（前 k 名中没有则为 0），对查询求平均",
    },
    "metric_def_ndcg": {
        "en": "nDCG(@k): graded gain (the grade; 0 below {t}) discounted by log2(rank + 1), "
        "over the same for the ideal ordering of the judged items",
        "zh": "nDCG(@k)：分级增益（即等级；低于 {t} 时为 0）按 log2(名次 + 1) 折损，"
        "再除以已标注项理想排序的同一数值",
    },
    "metric_def_map": {
        "en": "MAP(@k): the mean over relevant items (grade >= {t}) of the precision at each "
        "one's rank, averaged over queries",
        "zh": "MAP(@k)：各相关项（等级 >= {t}）所在名次处的精确率的平均，再对查询求平均",
    },
    "metric_def_bpref": {
        "en": "bpref: for each of the R relevant items (grade >= {t}), 1 minus the share of "
        "the first R judged non-relevant items ranked above it, averaged over the R; unjudged "
        "items are skipped, not counted non-relevant (Buckley & Voorhees 2004; trec_eval's "
        "bpref)",
        "zh": "bpref：对 R 个相关项（等级 >= {t}）中的每一个，取 1 减去排在它前面的已标注不相关项"
        "（至多 R 个）所占比例，再对 R 个相关项求平均；未标注项被跳过，不算作不相关"
        "（Buckley 与 Voorhees 2004；即 trec_eval 的 bpref）",
    },
    "metric_def_infap": {
        "en": "infAP: inferred AP for a sampled pool (Yilmaz & Aslam 2006; trec_eval's infAP): "
        "pool candidates left unjudged (pool-unjudged.tsv) are taken to be relevant in the "
        "proportion of the judged ones above each relevant item (grade >= {t}); items outside "
        "the pool count as non-relevant; equal to AP when every candidate was judged",
        "zh": "infAP：抽样候选池的推断 AP（Yilmaz 与 Aslam 2006；即 trec_eval 的 infAP）："
        "候选池中未标注的候选（pool-unjudged.tsv）按每个相关项（等级 >= {t}）之前已标注项中"
        "相关项的比例推断；候选池之外的项按不相关计；所有候选均已标注时等于 AP",
    },
    "eval_head": {
        "en": "release {version} (manifest sha256 {sha}), corpus version {corpus}; level "
        "{level}; relevant means grade >= {threshold}; split {split}",
        "zh": "发布 {version}（清单 sha256 {sha}），语料版本 {corpus}；粒度 {level}；"
        "等级 >= {threshold} 视为相关；数据划分 {split}",
    },
    "eval_all_splits": {"en": "all", "zh": "全部"},
    "eval_queries": {
        "en": "queries in scope: {scope}; counted: {counted}; unanswerable (evaluated apart): "
        "{unanswerable}; left out: {excluded} (answerable, but nothing graded {threshold} "
        "or more)",
        "zh": "范围内查询：{scope}；计入：{counted}；无答案（单独评估）：{unanswerable}；"
        "排除：{excluded}（可回答，但没有等级 {threshold} 及以上的标注）",
    },
    "eval_population": {
        "en": "each figure: the mean over the {counted} counted queries (with a relevant "
        "chunk); the {without} answerable queries without one are left out. An estimate "
        "is the mean over all {answerable} answerable queries, those {without} counting 0: "
        "not the same figure",
        "zh": "各项数值：{counted} 条计入查询（有相关片段）上的均值；{without} 条没有相关片段的"
        "可回答查询不计入。估计是全部 {answerable} 条可回答查询上的均值，"
        "那 {without} 条计 0：两者不是同一个数",
    },
    "estimate_population": {
        "en": "  population: the {population} answerable queries in scope, {without} of them "
        "with nothing relevant in the release (each counts 0); the plain figures above "
        "average only the {counted} with a relevant chunk: not the same figure",
        "zh": "  总体：范围内 {population} 条可回答查询，其中 {without} 条在发布中没有相关项"
        "（各计 0）；上方的普通数值只对有相关片段的 {counted} 条求均值：两者不是同一个数",
    },
    "eval_left_out": {"en": "left out: {ids}", "zh": "已排除：{ids}"},
    "eval_more": {
        "en": "(+{count} more in report.json)",
        "zh": "（另有 {count} 条，见 report.json）",
    },
    "eval_marked_unanswerable": {
        "en": "marked unanswerable, yet graded relevant (kept apart as unanswerable): {ids}",
        "zh": "标为无答案却有相关标注（仍按无答案单独评估）：{ids}",
    },
    "eval_run": {
        "en": "run {name}: {file} (sha256 {sha}), {ids}, ranks {ranked} queries",
        "zh": "运行结果 {name}：{file}（sha256 {sha}），{ids}，排序了 {ranked} 条查询",
    },
    "eval_ids_chunk": {"en": "chunk ids", "zh": "片段 id"},
    "eval_ids_doc": {"en": "document ids", "zh": "文档 id"},
    "eval_ids_reduced": {
        "en": "chunk ids reduced to documents by their best chunk",
        "zh": "片段 id，已按最佳片段归并为文档",
    },
    "eval_ids_unchecked": {
        "en": "ids not checked (the release has no chunks.tsv)",
        "zh": "id 未检查（该发布没有 chunks.tsv）",
    },
    "eval_without_ranking": {
        "en": "{run} ranks nothing for {count} counted queries (each scores 0): {ids}",
        "zh": "{run} 对 {count} 条计入的查询没有任何结果（记为 0）：{ids}",
    },
    "eval_not_in_release": {
        "en": "{run} ranks {count} queries that are not in the release (ignored): {ids}",
        "zh": "{run} 含有 {count} 条不在本发布中的查询（已忽略）：{ids}",
    },
    "eval_context": {
        "en": "context budget: the generator sees the top {k}; a figure at a deeper k counts "
        "evidence it never reads",
        "zh": "上下文预算：生成器只看前 {k} 个；更深的 k 处的数值包含生成器读不到的证据",
    },
    "eval_group": {"en": "{group}: {queries} queries", "zh": "{group}：{queries} 条查询"},
    "eval_group_all": {"en": "all", "zh": "全部"},
    "eval_micro": {"en": "micro {value}", "zh": "微平均 {value}"},
    "eval_condensed": {"en": "condensed {value}", "zh": "压缩列表 {value}"},
    "eval_beyond_context": {"en": "(beyond the context budget)", "zh": "（超出上下文预算）"},
    "eval_versus": {
        "en": "{run} against {baseline}: candidate - baseline, 95% interval, p ({test})",
        "zh": "{run} 对比 {baseline}：候选减基线，95% 区间，p 值（{test}）",
    },
    "eval_test_name": {
        "en": "paired randomization test (sign flips), two-sided",
        "zh": "配对随机化检验（随机翻转符号），双侧",
    },
    "eval_unanswerable_title": {
        "en": "unanswerable queries: does a run's top score tell them from answerable ones?",
        "zh": "无答案查询：运行结果的最高分能否把它们与可回答查询区分开？",
    },
    "eval_unanswerable_line": {
        "en": "{run} [{group}]: AUROC {auroc} ({answerable} answerable, {unanswerable} "
        "unanswerable); {share} of the unanswerable score above the answerable median",
        "zh": "{run} [{group}]：AUROC {auroc}（可回答 {answerable} 条，无答案 {unanswerable} 条）；"
        "无答案查询中有 {share} 的最高分高于可回答查询的中位数",
    },
    "eval_unanswerable_undefined": {
        "en": "{run} [{group}]: undefined ({reason})",
        "zh": "{run} [{group}]：无法计算（{reason}）",
    },
    "eval_reason_no_unanswerable": {"en": "no unanswerable queries", "zh": "没有无答案查询"},
    "eval_reason_no_answerable": {
        "en": "no answerable query with a relevant item",
        "zh": "没有带相关项的可回答查询",
    },
    "eval_low_judged": {
        "en": "warning: low Judged@k for {run} [{group}]: {judged}; unjudged items count as "
        "non-relevant, so its figures may be too low; top the pool up with: {command}",
        "zh": "警告：{run} [{group}] 的 Judged@k 偏低：{judged}；未标注项按不相关计，"
        "其数值可能偏低；可用以下命令补充候选池：{command}",
    },
    "eval_movers": {
        "en": "{run} against {baseline} on {metric} [{group}]: most {change}",
        "zh": "{run} 对比 {baseline}，{metric} [{group}]：{change}最多的查询",
    },
    "eval_improved": {"en": "improved", "zh": "提升"},
    "eval_regressed": {"en": "regressed", "zh": "退化"},
    "eval_gate_title": {
        "en": "gate on the {split} split (candidate - baseline):",
        "zh": "在 {split} 划分上的门禁（候选减基线）：",
    },
    "eval_gate_check": {
        "en": "{verdict} {run} {check} [{group}]: {difference} {interval} over {queries} queries",
        "zh": "{verdict} {run} {check} [{group}]：{queries} 条查询上为 {difference} {interval}",
    },
    "eval_not_gated": {"en": "not gated (n < {min})", "zh": "未门禁（n < {min}）"},
    "eval_gate_added": {
        "en": "added to --metrics for the gate: {metrics}",
        "zh": "为门禁补充到 --metrics 的指标：{metrics}",
    },
    "eval_adjusted": {
        "en": "Holm and BH: the p-values adjusted over all {count} comparisons at once (every "
        "candidate, group and metric); Holm bounds the chance of any false finding, "
        "Benjamini-Hochberg the expected share of false ones among those below 0.05",
        "zh": "Holm 与 BH：对全部 {count} 项比较（所有候选、分组与指标）一起校正后的 p 值；"
        "Holm 控制出现任何误报的概率，Benjamini-Hochberg 控制 p < 0.05 者中误报的期望比例",
    },
    "eval_pass": {"en": "PASS", "zh": "通过"},
    "eval_fail": {"en": "FAIL", "zh": "未通过"},
    "eval_gate_passed": {"en": "gate passed", "zh": "门禁通过"},
    "eval_gate_failed": {
        "en": "gate failed: {count} checks failed, first {check} [{group}]",
        "zh": "门禁未通过：{count} 项检查失败，首项为 {check} [{group}]",
    },
    "eval_definitions": {"en": "definitions:", "zh": "指标定义："},
    "eval_md_title": {
        "en": "Evaluation against release {version}",
        "zh": "基于发布 {version} 的评估",
    },
    "eval_md_runs": {"en": "Runs", "zh": "运行结果"},
    "eval_md_runs_header": {
        "en": "run|file|sha256|ids|queries ranked",
        "zh": "运行结果|文件|sha256|id 类型|排序的查询数",
    },
    "eval_md_definitions": {"en": "Metric definitions", "zh": "指标定义"},
    "eval_md_figures": {
        "en": "Figures: means over the counted queries, 95% bootstrap interval",
        "zh": "数值：计入查询上的平均，95% bootstrap 区间",
    },
    "eval_md_figures_header": {
        "en": "run|group|metric|queries|mean|95% interval|micro|Judged@k|condensed|context",
        "zh": "运行结果|分组|指标|查询数|平均|95% 区间|微平均|Judged@k|压缩列表|上下文",
    },
    "eval_md_unanswerable": {"en": "Unanswerable queries", "zh": "无答案查询"},
    "eval_md_comparisons": {"en": "Comparisons with the baseline", "zh": "与基线的比较"},
    "eval_md_comparisons_header": {
        "en": "run|group|metric|queries|baseline|candidate|difference|95% interval|p|p Holm|p BH",
        "zh": "运行结果|分组|指标|查询数|基线|候选|差值|95% 区间|p 值|Holm p 值|BH p 值",
    },
    "eval_md_movers": {"en": "Queries that moved most", "zh": "变化最大的查询"},
    "eval_md_movers_header": {
        "en": "run|group|metric|change|query|text|baseline|candidate|difference",
        "zh": "运行结果|分组|指标|变化|查询|文本|基线|候选|差值",
    },
    "eval_md_gate": {"en": "Gate", "zh": "门禁"},
    "eval_release": {"en": "Release", "zh": "发布版本"},
    "eval_stored_runs": {
        "en": "Runs in the database for this release's queries and corpus "
        "(the first is the baseline)",
        "zh": "数据库中与该发布的查询和语料对应的运行结果（第一个为基线）",
    },
    "eval_runs": {
        "en": "Run files to upload: TREC, JSONL or CSV (after the runs chosen above; the "
        "first run of all is the baseline)",
        "zh": "上传运行结果文件：TREC、JSONL 或 CSV"
        "（排在上面所选的运行结果之后；全部中的第一个为基线）",
    },
    "eval_metrics": {"en": "Metrics", "zh": "指标"},
    "eval_level": {"en": "Level", "zh": "粒度"},
    "eval_split": {"en": "Split", "zh": "数据划分"},
    "eval_context_k": {
        "en": "Context budget k (0: none)",
        "zh": "上下文预算 k（0 表示不设）",
    },
    "eval_condensed_option": {
        "en": "Also score condensed lists (unjudged items removed)",
        "zh": "同时计算压缩列表（去掉未标注项）",
    },
    "eval_no_releases": {
        "en": "No release has been written yet: create one on the Releases page.",
        "zh": "还没有任何发布：请先在“发布”页面创建。",
    },
    "eval_upload_hint": {
        "en": "Choose runs from the database or upload TREC runs to evaluate them against "
        "the release.",
        "zh": "从数据库中选择运行结果，或上传 TREC 运行结果，以该发布评估它们。",
    },
    "eval_overall": {"en": "Overall", "zh": "总体"},
    "eval_chart_metric": {"en": "Metric in the charts", "zh": "图表中的指标"},
    "eval_chart_title": {
        "en": "{metric} per group, with 95% bootstrap intervals",
        "zh": "各分组的 {metric}，含 95% bootstrap 区间",
    },
    "eval_show_table": {"en": "Show the table", "zh": "显示表格"},
    "eval_candidate": {"en": "Candidate", "zh": "候选"},
    "eval_scatter_title": {
        "en": "{metric} per query: baseline {baseline} (x) against {run} (y)",
        "zh": "各查询的 {metric}：基线 {baseline}（横轴）对比 {run}（纵轴）",
    },
    "eval_regressions": {
        "en": "Queries that regressed most on {metric}",
        "zh": "{metric} 退化最多的查询",
    },
    "eval_download": {"en": "Download the report (zip)", "zh": "下载报告（zip）"},
    "eval_written": {
        "en": "report written to {folder}: report.json, per_query.csv, report.md",
        "zh": "报告已写入 {folder}：report.json、per_query.csv、report.md",
    },
    "release_exists": {
        "en": "release '{version}' already exists; a version is never rewritten",
        "zh": "发布“{version}”已存在；版本一经发布不会重写",
    },
    "release_unresolved": {
        "en": "{count} candidates are unresolved (e.g. {query} / {chunk}): adjudicate them, "
        "or pass --allow-unresolved to leave them out and count them in the manifest",
        "zh": "有 {count} 个候选尚未解决（例如 {query} / {chunk}）：请先裁定，"
        "或使用 --allow-unresolved 将其排除并在清单中计数",
    },
    "release_folder_exists": {
        "en": "{folder} exists already; a release goes into a new folder VERSION under --out",
        "zh": "{folder} 已存在；发布需写入 --out 之下以版本命名的新文件夹",
    },
    # -- metric estimates from a model judge and a human sample
    "estimate_no_sample": {
        "en": "release {release} holds no sample of queries judged by people "
        "(draw one with qrels sample before the release)",
        "zh": "发布 {release} 不含人工标注的查询样本（请在发布前用 qrels sample 抽样）",
    },
    "estimate_model_unknown": {
        "en": "the release holds no grades by model '{model}'; models in it: {known}",
        "zh": "该发布不含模型“{model}”的评分；其中的模型：{known}",
    },
    "estimate_model_ambiguous": {
        "en": "model '{model}' graded this release's pool under more than one prompt; name one "
        "of its accounts: {accounts}",
        "zh": "模型“{model}”曾以不止一个提示词为该发布的池评分；请指明其中一个账号：{accounts}",
    },
    "estimate_predictor_unknown": {
        "en": "unknown predictor '{predictor}': choose one of {known}",
        "zh": "未知的预测方式“{predictor}”：请从以下选择：{known}",
    },
    "estimate_predictor_calibrated": {
        "en": "  predictor: the model's grades calibrated on people's (P(human grade | model "
        "grade) on the sampled queries, cross-fitted over {folds} folds, mean of {draws} draws)",
        "zh": "  预测量：按人工评分校准的模型评分（在抽样查询上拟合 P(人工评分 | 模型评分)，"
        "{folds} 折交叉拟合，取 {draws} 次抽取的均值）",
    },
    "estimate_predictor_raw": {
        "en": "  predictor: the model's grades as they are (--raw-grades)",
        "zh": "  预测量：模型的原始评分（--raw-grades）",
    },
    "estimate_sample_out_of_scope": {
        "en": "none of the sampled queries of release {release} is in scope",
        "zh": "发布 {release} 的抽样查询均不在评估范围内",
    },
    "estimate_head": {
        "en": "estimates from model judge {model} and people's grades on a sample of {size} "
        "of {population} queries ({design}, seed {seed}):",
        "zh": "由模型评审 {model} 与人工在 {population} 条查询中 {size} 条样本上的评分"
        "得到的估计（{design}，种子 {seed}）：",
    },
    "estimate_judged": {
        "en": "  people graded {share:.0%} of the model-graded candidates of the sampled "
        "queries (the estimate assumes all)",
        "zh": "  人工已评分抽样查询中经模型评分候选的 {share:.0%}（估计假定全部已评）",
    },
    "estimate_group": {
        "en": "{group}: {queries} queries, {human} judged by people ({share:.0%})",
        "zh": "{group}：{queries} 条查询，其中 {human} 条由人工标注（{share:.0%}）",
    },
    "estimate_figure": {
        "en": "{value} {interval}; model only {model}; people only {human} {human_interval}"
        "; λ {weight}",
        "zh": "{value} {interval}；仅模型 {model}；仅人工 {human} {human_interval}；λ {weight}",
    },
    "estimate_none": {
        "en": "no estimate: {why} (model only {model})",
        "zh": "无估计：{why}（仅模型 {model}）",
    },
    "estimate_too_few": {
        "en": "{n} human queries, fewer than {minimum}",
        "zh": "人工查询 {n} 条，少于 {minimum} 条",
    },
    "estimate_stratum_small": {
        "en": "too few human queries in stratum {strata}",
        "zh": "分层 {strata} 的人工查询过少",
    },
    "estimate_constant": {
        "en": "people's values do not vary on the sample (an interval would have width 0)",
        "zh": "样本上的人工数值没有变化（区间宽度将为 0）",
    },
    "estimate_what": {
        "en": "estimates: the mean over the answerable queries in scope of the metric under "
        "people's grades (a query with nothing relevant scores 0), with a 95% interval; "
        "λ weighs the model's figure (0: people only)",
        "zh": "估计：范围内可回答查询上按人工评分计算的指标均值（无相关项的查询计 0），"
        "附 95% 区间；λ 为模型数值的权重（0 即仅用人工）",
    },
    "estimate_gate_title": {
        "en": "gate on the estimated differences ({split} split):",
        "zh": "基于估计差值的门禁（{split} 划分）：",
    },
    "estimate_not_gated": {"en": "NOT GATED", "zh": "不参与门禁"},
    "estimate_nothing_gated": {
        "en": "nothing to gate on the estimates: no {split} group has both an estimate (at "
        "least {human} queries judged by people) and {min} queries; sample more queries (qrels "
        "sample), lower --min-queries or pass --gate-small",
        "zh": "没有可门禁的估计：没有任何 {split} 分组既有估计（至少 {human} 条由人工标注的查询）"
        "又有 {min} 条查询；请抽取更多查询（qrels sample）、调低 --min-queries 或使用 --gate-small",
    },
    "estimate_gate_failed": {
        "en": "gate failed on the estimates",
        "zh": "基于估计的门禁未通过",
    },
    "estimate_col_run": {"en": "run", "zh": "运行"},
    "estimate_col_group": {"en": "group", "zh": "分组"},
    "estimate_col_metric": {"en": "metric", "zh": "指标"},
    "estimate_col_estimate": {"en": "estimate", "zh": "估计"},
    "estimate_col_interval": {"en": "95% interval", "zh": "95% 区间"},
    "estimate_col_human": {"en": "human queries (share)", "zh": "人工查询（占比）"},
    "estimate_col_model_only": {"en": "model only", "zh": "仅模型"},
    "estimate_col_human_only": {"en": "people only", "zh": "仅人工"},
    "estimate_col_note": {"en": "note", "zh": "说明"},
    "what_sample_design": {"en": "sample design", "zh": "抽样方式"},
    "sample_needs_model": {
        "en": "--by uncertainty needs --model: the model judge whose grades set the probabilities",
        "zh": "--by uncertainty 需要 --model：以其评分确定抽样概率的模型评审",
    },
    "sample_not_a_model": {
        "en": "'{name}' is a person's account, not a model judge's",
        "zh": "“{name}”是人工账户，不是模型评审",
    },
    "sample_no_model_grades": {
        "en": "model judge '{name}' has graded no candidate of pool '{pool}'",
        "zh": "模型评审“{name}”尚未给池“{pool}”的任何候选评分",
    },
    "sample_drawn": {
        "en": "pool {pool}: {size} of {population} queries drawn ({design}, seed {seed}); "
        "people judge them completely, and the app hands them out first",
        "zh": "池 {pool}：从 {population} 条查询中抽取 {size} 条（{design}，种子 {seed}）；"
        "由人工完整标注，应用会优先分派这些查询",
    },
    "sample_redraw_refused": {
        "en": "pool '{pool}' has a sample of which people have judged {judged} queries: a new "
        "draw would set their work aside, and drawing until an estimate favours a run would go "
        "unseen; to draw anyway, give --redraw --why TEXT (the reason is kept with the draw, "
        "travels in releases and is shown with every estimate)",
        "zh": "池“{pool}”的样本中已有 {judged} 条查询由人工标注：重新抽样会搁置这些工作，"
        "反复抽样直到估计偏向某个运行结果也无从察觉；如仍要抽样，请给出 --redraw --why 原因"
        "（原因随本次抽样保存，写入发布，并与每个估计一同显示）",
    },
    "sample_redraw_needs_why": {
        "en": "--redraw needs --why TEXT: why the sample is drawn again (kept with the draw "
        "and shown with every estimate)",
        "zh": "--redraw 需要 --why 原因：为何重新抽样（随本次抽样保存，并与每个估计一同显示）",
    },
    "what_redraw_reason": {"en": "reason for the new draw", "zh": "重新抽样的原因"},
    "sample_draw": {
        "en": "sample: draw {number} of {total}",
        "zh": "样本：第 {number} 次抽样，共 {total} 次",
    },
    "sample_draw_redrawn": {
        "en": ", redrawn after {judged} judged queries",
        "zh": "，在 {judged} 条查询已人工标注后重新抽样",
    },
    "sample_draw_redrawn_unknown": {
        "en": ", redrawn (how many queries had been judged was not kept then)",
        "zh": "，重新抽样（当时未记录已标注的查询数）",
    },
    "sample_draw_reason": {"en": ": {why}", "zh": "：{why}"},
    "sample_draws_unknown": {
        "en": "sample: the release does not say how often it was drawn (made before draws were "
        "kept)",
        "zh": "样本：该发布未记录抽样次数（生成于记录抽样历史之前）",
    },
    "app_sample_redraw_refused": {
        "en": "people have judged {judged} queries of pool '{pool}''s sample: a new draw sets "
        "their work aside, so say why in the 'Why draw again' field (kept with the draw and "
        "shown with every estimate)",
        "zh": "候选池“{pool}”的样本中已有 {judged} 条查询被人工标注：重新抽样会搁置这些工作，"
        "请在“为何重新抽样”一栏写明原因（随本次抽样保存，并与每个估计一同显示）",
    },
    "app_sample_redraw_needs_why": {
        "en": "say why the sample is drawn again in the 'Why draw again' field (kept with the "
        "draw and shown with every estimate)",
        "zh": "请在“为何重新抽样”一栏写明重新抽样的原因（随本次抽样保存，并与每个估计一同显示）",
    },
    "sample_design_uniform": {"en": "uniform", "zh": "等概率"},
    "sample_design_stratified": {"en": "stratified by slice", "zh": "按切片分层"},
    "sample_design_uncertainty": {
        "en": "by the model's uncertainty",
        "zh": "按模型的不确定度",
    },
    # -- pools and retrieval (more)
    # -- carrying judgments across a chunking change
    "carry_version_differs": {
        "en": "{kind} '{name}' in this database has other content than the release was made from",
        "zh": "本数据库中的{kind}“{name}”与该发布所依据的内容不同",
    },
    "carry_same_version": {
        "en": "corpus version '{name}' is the release's own: carry to a version chunked "
        "differently",
        "zh": "语料版本“{name}”就是该发布所用的版本：请迁移到切分不同的版本",
    },
    "carry_done_before": {
        "en": "release '{release}' was already carried to corpus version '{name}' (pool '{pool}')",
        "zh": "发布“{release}”已迁移到语料版本“{name}”（候选池“{pool}”）",
    },
    "carry_accept_not_carried": {
        "en": "pool '{pool}' was not built by `qrels carry`: it has no carried grades to accept",
        "zh": "候选池“{pool}”不是由 `qrels carry` 建立的：没有可接受的迁移等级",
    },
    "mapping_same_text": {"en": "same text", "zh": "文本相同"},
    "mapping_split": {"en": "split", "zh": "拆分"},
    "mapping_merged": {"en": "merged", "zh": "合并"},
    "mapping_partial": {"en": "partial", "zh": "部分重叠"},
    "mapping_lost": {"en": "lost", "zh": "丢失"},
    "mapping_document_changed": {
        "en": "not mapped: document changed",
        "zh": "未映射：文档已改变",
    },
    "mapping_document_missing": {
        "en": "not mapped: document missing",
        "zh": "未映射：文档已不存在",
    },
    "mapping_document_unknown": {
        "en": "not mapped: document text unknown",
        "zh": "未映射：文档全文未知",
    },
    "mapping_span_unknown": {
        "en": "not mapped: chunk span unknown",
        "zh": "未映射：片段位置未知",
    },
    "carry_title": {
        "en": "Carried from release {release} (corpus version {corpus_version}, chunking "
        "{chunking}; min overlap {min_overlap})",
        "zh": "迁移自发布 {release}（语料版本 {corpus_version}，切分 {chunking}；"
        "最小重叠 {min_overlap}）",
    },
    # Words a message shows as parameters, in the page's language ("@key" parameters).
    "pool_strategy_depth": {"en": "depth", "zh": "深度"},
    "pool_strategy_budget": {"en": "budget", "zh": "预算"},
    "pool_strategy_active": {"en": "active, reach", "zh": "主动建池，候选范围"},
    "pool_strategy_carried": {"en": "carried from", "zh": "迁移自"},
    "eval_level_chunk": {"en": "chunk", "zh": "片段"},
    "eval_level_doc": {"en": "doc", "zh": "文档"},
    "pool_show_head": {
        "en": "{name}: {systems} ({strategy} {size}, overlap {overlap})",
        "zh": "{name}：{systems}（{strategy} {size}，每个候选 {overlap} 份标注）",
    },
    # -- CLI reports
    "error": {"en": "error", "zh": "错误"},
}

register(MESSAGES)
