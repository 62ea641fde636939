"""The ``qrels`` command's own messages (help and output of its commands), in English and
Chinese, registered into the one table of ``pooling.i18n`` when ``annotator.cli`` is
imported."""

from __future__ import annotations

from pooling.i18n import register

MESSAGES: dict[str, dict[str, str]] = {
    # -- qrels pool guide
    "pool_guided": {
        "en": "pool {name}: people now judge first what {model} grades relevant or is unsure "
        "of (one item in 5 explores outside its top; its grades are never shown)",
        "zh": "池 {name}：今后人们先判断 {model} 评为相关或不确定的条目（每 5 条中有 1 条探索其"
        "前列之外；其评分从不显示）",
    },
    "pool_unguided": {
        "en": "pool {name}: no model guides it any more",
        "zh": "池 {name}：不再由模型引导",
    },
    "pool_not_active": {
        "en": "pool {name} is not an active pool: qrels pool show {name} reports on it",
        "zh": "池 {name} 不是主动池：请用 qrels pool show {name} 查看",
    },
    "guide_model_or_none": {
        "en": "give exactly one of --model MODEL and --none",
        "zh": "--model MODEL 与 --none 须且只能指定一个",
    },
    # -- qrels demo's campaign in progress
    "demo_campaign": {
        "en": "a campaign in progress: {judgments} judgments by {annotators} annotators over "
        "three days ({left} judgments still to make), {decisions} lead decisions, {gold} "
        "gold item, release {release}",
        "zh": "进行中的标注项目：{annotators} 位标注员三天内完成 {judgments} 条标注"
        "（还有 {left} 条待标注），组长裁决 {decisions} 条，金标准 {gold} 条，"
        "发布版本 {release}",
    },
    "demo_runs": {
        "en": "two runs to evaluate (upload both on the Evaluate page; the first is the "
        "baseline): {runs}",
        "zh": "两个待评测的运行结果（在“评测”页面一起上传，第一个为基线）：{runs}",
    },
    "demo_use": {
        "en": "to use the command line on the demo, in another terminal:",
        "zh": "如需在另一个终端用命令行操作演示数据：",
    },
    # -- pools and systems
    "pool_exported": {
        "en": "wrote {count} candidates of pool '{name}' to {path}",
        "zh": "已将候选池“{name}”的 {count} 个候选写入 {path}",
    },
    "pool_show_sizes": {
        "en": "{candidates} candidates for {queries} queries: per query min {low}, "
        "median {median}, max {high}; {empty} queries without candidates",
        "zh": "{queries} 条查询共 {candidates} 个候选：每条查询最少 {low}，中位数 {median}，"
        "最多 {high}；{empty} 条查询没有候选",
    },
    "pool_show_system": {
        "en": "{system}: found {found}, unique {unique}",
        "zh": "{system}：找到 {found}，独有 {unique}",
    },
    "pool_show_systems": {
        "en": "systems (found: candidates it put forward; unique: found by no other system)",
        "zh": "各系统（找到：该系统提供的候选数；独有：其他系统均未找到的候选数）",
    },
    "pool_show_shared": {"en": "shared with other systems", "zh": "与其他系统共同找到"},
    "pool_show_per_query": {"en": "candidates per query", "zh": "各查询候选数"},
    # -- security and integrity
    "release_intact_recorded": {
        "en": "{folder}: intact, and the release the database recorded ({url})",
        "zh": "{folder}：完好，且正是数据库记录的发布（{url}）",
    },
    "release_intact_alone": {
        "en": "{folder}: intact in itself (every file matches the manifest); no database "
        "to compare with, so whether it is the release that was created is not known "
        "(give --db)",
        "zh": "{folder}：自身完好（每个文件都与清单一致）；没有可比对的数据库，"
        "因此无法确认它就是当初创建的发布（请用 --db 指定数据库）",
    },
    "release_out_old_form": {
        "en": "warning: --out {out} ends in the version, so it is read as before 0.2.0, as "
        "the release's own folder; this form is accepted until 0.3.0. --out now names the "
        "folder that holds releases: write --out {root}",
        "zh": "警告：--out {out} 以版本号结尾，因此按 0.2.0 之前的方式理解为该发布自身的文件夹；"
        "此写法只接受到 0.3.0 为止。--out 现在指存放各发布的文件夹：请写 --out {root}",
    },
    "release_checked_alone": {
        "en": "{folder}: checked against its own manifest only; no database record was "
        "compared (qrels release verify FOLDER --db URL tells whether it is the release "
        "that was created)",
        "zh": "{folder}：只与自身清单核对过，未与数据库记录比对"
        "（qrels release verify FOLDER --db URL 可确认它就是当初创建的发布）",
    },
    # -- accounts
    "user_added": {
        "en": "added {role} '{name}'",
        "zh": "已添加{role}“{name}”",
    },
    "user_disabled": {
        "en": "disabled '{name}': they can no longer log in; their judgments are kept",
        "zh": "已停用“{name}”：不能再登录，其标注均保留",
    },
    "user_password_set": {
        "en": "new password for '{name}': their sessions have ended, they log in again",
        "zh": "已为“{name}”设置新密码：其会话均已结束，需要重新登录",
    },
    "password_file_empty": {
        "en": "{file}: the first line holds no password",
        "zh": "{file}：第一行没有密码",
    },
    # -- gold items
    "gold_settings_line": {
        "en": "pool '{pool}': one gold item in {rate}; annotators flagged below kappa {floor}; "
        "their own figures shown: {show}, after {min_seen} gold items",
        "zh": "候选池“{pool}”：每 {rate} 条插入 1 个金标条目；kappa 低于 {floor} 的标注者被标记；"
        "向标注者显示其成绩：{show}，在看过 {min_seen} 个金标条目之后",
    },
    "gold_none_seen": {
        "en": "no annotator has been checked on gold yet",
        "zh": "还没有标注者做过金标检查",
    },
    "gold_report_head": {
        "en": "on gold (seen, exact, within one, right side of 1 and of 2, quadratic kappa); "
        "flagged below {floor}",
        "zh": "金标成绩（已看过、完全一致、相差不超过 1、1 级与 2 级两侧判断正确、"
        "二次加权 kappa）；低于 {floor} 被标记",
    },
    "gold_report_line": {
        "en": "{annotator}: {seen} seen, {exact} exact, {within} within one, {ge1} / {ge2}, "
        "kappa {kappa}",
        "zh": "{annotator}：看过 {seen}，完全一致 {exact}，相差不超过 1 {within}，"
        "{ge1} / {ge2}，kappa {kappa}",
    },
    "gold_flagged": {"en": "[below the floor]", "zh": "【低于下限】"},
    # -- grades, judgments, adjudication
    "agreement_group": {
        "en": "{group}: {items} items, annotators {annotators}",
        "zh": "{group}：{items} 个条目，标注者 {annotators}",
    },
    "agreement_pair": {
        "en": "{a} × {b}: {shared} shared, agreement {percent}; kappa {kappas}",
        "zh": "{a} × {b}：共同 {shared} 个，一致率 {percent}；kappa {kappas}",
    },
    "calibration_confusion": {
        "en": "confusion (rows: humans 0-3, columns: judge 0-3):",
        "zh": "混淆矩阵（行：人工 0-3，列：自动评判 0-3）：",
    },
    "calibration_slice": {
        "en": "slice {slice}: {shared} shared, quadratic kappa {kappa}",
        "zh": "切片 {slice}：共同 {shared} 个，二次加权 kappa {kappa}",
    },
    "calibration_difference": {
        "en": "{query_id}\t{chunk_id}\thuman {human}\tjudge {judge}",
        "zh": "{query_id}\t{chunk_id}\t人工 {human}\t自动 {judge}",
    },
    # -- the model judge (annotator.judge)
    "judge_needs_model": {
        "en": "--model and --base-url are needed to run the judge "
        "(or a subcommand: report, prompt)",
        "zh": "运行评判需要 --model 和 --base-url（或使用子命令：report、prompt）",
    },
    "judge_started": {
        "en": "run {run}: {model} on pool {pool} as {judge}, {todo} candidates to ask about",
        "zh": "第 {run} 次运行：{model} 评判候选池 {pool}，记为 {judge}，需询问 {todo} 个候选",
    },
    "judge_finished": {
        "en": "run {run} {status}: {graded} graded, {failed} failed, {flagged} flagged, "
        "{requests} requests",
        "zh": "第 {run} 次运行{status}：已定级 {graded} 个，失败 {failed} 个，标记 {flagged} 个，"
        "请求 {requests} 次",
    },
    "judge_reused": {
        "en": "{reused} candidates not asked again: this model answered them under this "
        "prompt in another pool, and those answers are recorded for this pool as reused",
        "zh": "{reused} 个候选不再询问：该模型已在其他候选池中以同一提示词回答过，"
        "这些回答作为复用记入本候选池",
    },
    "judge_run_error": {"en": "stopped because: {error}", "zh": "停止原因：{error}"},
    "judge_interrupted": {
        "en": "interrupted: every answer received so far is saved; run the same command to go on",
        "zh": "已中断：目前收到的回答均已保存；再次运行同一命令即可继续",
    },
    "judge_report_candidates": {
        "en": "candidates: {candidates}; graded {graded}, failed {failed}, not asked {not_asked}; "
        "flagged {flagged}",
        "zh": "候选：{candidates} 个；已定级 {graded}，失败 {failed}，未询问 {not_asked}；"
        "标记 {flagged}",
    },
    "judge_report_cost": {
        "en": "cost: {requests} requests, {tokens_in} tokens in, {tokens_out} tokens out, "
        "{request_seconds} s of requests, {seconds} s of runs",
        "zh": "成本：请求 {requests} 次，输入 {tokens_in} token，输出 {tokens_out} token，"
        "请求耗时 {request_seconds} 秒，运行耗时 {seconds} 秒",
    },
    "judge_report_grades": {"en": "grades given: {grades}", "zh": "给出的等级：{grades}"},
    "judge_report_failure": {
        "en": "{reason}: {attempts} failed attempts; candidates left without a grade: {candidates}",
        "zh": "{reason}：失败尝试 {attempts} 次，因此未定级的候选 {candidates} 个",
    },
    "judge_report_run": {
        "en": "run {run} ({status}, {started}, {served_model}): {requests} requests, "
        "{graded} graded, {failed} failed, {tokens_in}+{tokens_out} tokens, {seconds} s",
        "zh": "第 {run} 次运行（{status}，{started}，{served_model}）：请求 {requests} 次，"
        "定级 {graded}，失败 {failed}，token {tokens_in}+{tokens_out}，{seconds} 秒",
    },
    "judge_report_review": {
        "en": "for people to see ({count}):",
        "zh": "需要人工查看（{count} 个）：",
    },
    "judge_report_calibrate": {
        "en": "the same against a release: qrels calibrate --judge '{judge}' --release DIR",
        "zh": "对照某个发布版本：qrels calibrate --judge '{judge}' --release DIR",
    },
    # -- releases
    # -- evaluation
    "run_names_count": {
        "en": "{names} --name for {runs} --run: give one name per run, in the order of --run, "
        "or none",
        "zh": "给了 {names} 个 --name，却有 {runs} 个 --run：请按 --run 的顺序为每个运行结果各给"
        "一个名称，或者都不给",
    },
    "diff_counted": {
        "en": "the metrics average over {before} -> {after} queries (answerable, with a chunk "
        "graded 1 or more; qrels evaluate lists the others and why)",
        "zh": "指标平均所覆盖的查询：{before} -> {after} 条（可回答且有等级 1 及以上的片段；"
        "其余查询及原因见 qrels evaluate）",
    },
    "release_per_grade": {"en": "grade {grade}: {count}", "zh": "{grade} 级 {count} 个"},
    "list_separator": {"en": ", ", "zh": "，"},
    "release_written": {
        "en": "release {version}: {graded} graded candidates ({per_grade}), {unresolved} "
        "unresolved left out, {without_grade_2} queries without a chunk graded 2+ -> {folder}",
        "zh": "发布 {version}：{graded} 个已定级候选（{per_grade}），排除未解决 {unresolved} 个，"
        "{without_grade_2} 条查询没有 2 级及以上的片段 -> {folder}",
    },
    "diff_counts": {
        "en": "added {added}, removed {removed}, changed {changed}",
        "zh": "新增 {added}，删除 {removed}，改变 {changed}",
    },
    "rank_at": {"en": "rank {rank}", "zh": "第 {rank} 名"},
    # -- metric estimates from a model judge and a human sample
    "sample_stratum": {
        "en": "  stratum {stratum}: {drawn} of {queries}",
        "zh": "  分层 {stratum}：{queries} 条中抽取 {drawn} 条",
    },
    "sample_probabilities": {
        "en": "  each query drawn on its own (expected {expected}), with probability "
        "{low:.3f} to {high:.3f} by model {model}'s uncertainty",
        "zh": "  各查询独立抽取（期望 {expected} 条），按模型 {model} 的不确定度，"
        "概率为 {low:.3f} 到 {high:.3f}",
    },
    "sample_queries": {"en": "  queries: {ids}", "zh": "  查询：{ids}"},
    "sample_more": {"en": "and {count} more", "zh": "另有 {count} 条"},
    # -- pools and retrieval (more)
    # -- carrying judgments across a chunking change
    "carry_head": {
        "en": "carried release '{release}' to corpus version '{corpus_version}': pool '{pool}', "
        "{candidates} candidates for {queries} queries (overlap {overlap}), from {judged} "
        "judged candidates:",
        "zh": "已将发布“{release}”迁移到语料版本“{corpus_version}”：候选池“{pool}”，"
        "{queries} 条查询共 {candidates} 个候选（每个候选 {overlap} 份标注），来自 {judged} 个"
        "已定级候选：",
    },
    "carry_class": {"en": "{mapping}: {count}", "zh": "{mapping}：{count}"},
    "carry_documents": {
        "en": "{reason}: {count} ({documents} documents: {listed})",
        "zh": "{reason}：{count}（{documents} 篇文档：{listed}）",
    },
    "carry_more": {"en": "… and {count} more", "zh": "……另有 {count} 篇"},
    "carry_judge": {
        "en": "the mapped grades are kept as the judgments of '{judge}', an automatic judge: "
        "never in a release, never shown to annotators. Once people have graded the pool and "
        "it is released: qrels calibrate --judge {judge} --release NEW",
        "zh": "映射得到的等级记为自动评判“{judge}”的标注：不进入发布，也不向标注者显示。"
        "待人工标注完该候选池并发布后：qrels calibrate --judge {judge} --release NEW",
    },
    "carry_status_line": {
        "en": "{mapping}: {judged} judged in the release, {candidates} candidates here, "
        "{re_judged} re-judged",
        "zh": "{mapping}：发布中已定级 {judged} 个，此处候选 {candidates} 个，"
        "已重新标注 {re_judged} 个",
    },
    "diff_by_document": {
        "en": "the releases are on different corpus versions ({old} -> {new}): chunk ids differ, "
        "so judgments are compared by document (qrels-doc.trec)",
        "zh": "两个发布属于不同的语料版本（{old} -> {new}）：片段 id 含义不同，"
        "因此按文档比较标注（qrels-doc.trec）",
    },
    "release_derived": {
        "en": "derived from release {release} (corpus version {corpus_version}): {accepted} "
        "carried 'same text' grades of dev queries accepted without re-judging, {refused} "
        "of test queries refused",
        "zh": "派生自发布 {release}（语料版本 {corpus_version}）：未经重新标注接受 dev 查询的"
        "“文本相同”迁移等级 {accepted} 个，拒绝 test 查询的 {refused} 个",
    },
    "calibration_class": {
        "en": "mapping {mapping}: {shared} shared, same grade {same}, mean gap {gap}, "
        "quadratic kappa {kappa}",
        "zh": "映射类别 {mapping}：共同 {shared} 个，等级相同 {same}，平均差 {gap}，"
        "二次加权 kappa {kappa}",
    },
    "pool_required": {
        "en": "{name}: {query} / {chunk} now needs {count} judgments",
        "zh": "{name}：{query} / {chunk} 现在需要 {count} 份标注",
    },
    # -- CLI reports
    "cli_interrupted": {"en": "interrupted", "zh": "已中断"},
    "init_done": {
        "en": "database ready at {url} (schema {head})",
        "zh": "数据库已就绪：{url}（表结构 {head}）",
    },
    "imported_judgments": {
        "en": "imported {judgments} judgments by '{name}' ({format}) "
        "for query set '{query_set}' and corpus version '{corpus_version}'",
        "zh": "已导入“{name}”的 {judgments} 条标注（{format}），"
        "查询集“{query_set}”，语料版本“{corpus_version}”",
    },
    "judgments_unchanged": {
        "en": "these judgments by '{name}' were already imported: nothing to do",
        "zh": "“{name}”的这批标注已导入过：无需重复导入",
    },
    "user_created": {
        "en": "created annotator '{name}' without a password (it cannot log in)",
        "zh": "已创建标注者“{name}”，未设密码（不能登录）",
    },
    "demo_loaded": {
        "en": "demo database: {path}",
        "zh": "演示数据库：{path}",
    },
    "status_database": {
        "en": "database: {url} (schema {schema})",
        "zh": "数据库：{url}（表结构 {schema}）",
    },
    "status_corpus_versions": {"en": "corpus versions", "zh": "语料版本"},
    "status_corpus_line": {
        "en": "{name}: {documents} documents, {chunks} chunks, chunking {chunking}",
        "zh": "{name}：{documents} 篇文档，{chunks} 个片段，切分 {chunking}",
    },
    "status_query_sets": {"en": "query sets", "zh": "查询集"},
    "status_query_line": {
        "en": "{name}: {queries} queries (dev {dev}, test {test}, unanswerable {unanswerable}); "
        "{judgments} judgments on {judged} queries",
        "zh": "{name}：{queries} 条查询（dev {dev}，test {test}，无答案 {unanswerable}）；"
        "{judged} 条查询共 {judgments} 条标注",
    },
    "status_slices": {"en": "slices: {slices}", "zh": "切片：{slices}"},
    "status_by_annotator": {
        "en": "judgments by annotator: {people}",
        "zh": "各标注者标注数：{people}",
    },
    "status_systems": {
        "en": "imported runs (qrels import run)",
        "zh": "已导入的运行结果（qrels import run）",
    },
    "status_system_line": {
        "en": "{name} ({kind}): {entries} ranked results",
        "zh": "{name}（{kind}）：{entries} 条排序结果",
    },
    "status_pools": {"en": "pools", "zh": "候选池"},
    "status_pool_line": {
        "en": "{name} ({query_set} × {corpus_version}; systems {systems}): {candidates} "
        "candidates, {complete} with {overlap} judgments ({percent})",
        "zh": "{name}（{query_set} × {corpus_version}；检索系统 {systems}）：{candidates} "
        "个候选，{complete} 个已有 {overlap} 份标注（{percent}）",
    },
    "status_pool_set_apart": {
        "en": "; {pooled} built, {apart} of them set apart (gold items, and an active pool's "
        "candidates not yet chosen, are not asked about)",
        "zh": "；共构建 {pooled} 个，其中 {apart} 个另行处理"
        "（金标准条目及主动候选池中尚未选中的候选不分配标注）",
    },
    "status_users": {
        "en": "accounts: {leads} leads, {annotators} annotators",
        "zh": "账户：负责人 {leads} 名，标注者 {annotators} 名",
    },
    "status_none": {"en": "(none)", "zh": "（无）"},
    "port_taken": {
        "en": "port {port} on {host} is already in use (is the app already running there?): "
        "choose another with --port, such as --port {free}",
        "zh": "{host} 的端口 {port} 已被占用（应用是否已在该端口运行？）：请用 --port 另选端口，"
        "例如 --port {free}",
    },
    "rubric_written": {
        "en": "wrote rubric {version}: {files}. Replace each EDIT line with an example from "
        "your collection and adjust the grades' words (keep the '## N — label' headings); "
        "then serve and judge with this setting, and every judgment records rubric {version}:",
        "zh": "已写出评分标准 {version}：{files}。把每处 EDIT 换成你的文档集中的例子，并按需修改"
        "各等级的说明（保留“## N — 标签”标题）；然后在此设置下启动应用和模型评审，每条标注都会"
        "记录评分标准版本 {version}：",
    },
    "serving": {
        "en": "starting the app at {url} (Ctrl+C stops it)",
        "zh": "正在启动应用：{url}（按 Ctrl+C 停止）",
    },
    "serving_two": {
        "en": "the annotators' and the leads' pages run in two app processes "
        "(127.0.0.1:{annotators} and 127.0.0.1:{leads}), reached through {url}",
        "zh": "标注者与负责人的页面分别运行在两个应用进程中（127.0.0.1:{annotators} 与 "
        "127.0.0.1:{leads}），统一经由 {url} 访问",
    },
    "app_process_failed": {
        "en": "the app process on 127.0.0.1:{port} stopped (exit code {code}), and the "
        "other with it; see its messages above",
        "zh": "127.0.0.1:{port} 上的应用进程已停止（退出码 {code}），另一个也随之停止；"
        "详见上方信息",
    },
    "demo_accounts": {
        "en": "demo accounts (demo passwords, printed here on purpose: never use `qrels demo` "
        "for real work):",
        "zh": "演示账户（演示用密码，特意显示在此：切勿将 `qrels demo` 用于正式工作）：",
    },
    "status_empty": {
        "en": "the database is empty: import a corpus and a query set",
        "zh": "数据库为空：请导入语料和查询集",
    },
}

register(MESSAGES)
