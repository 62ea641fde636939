"""User-facing messages in English and Chinese, and the errors that carry them.

Every message a user can see is looked up here by key, so that the CLI, the app and the
errors raised anywhere speak the same language. The table sits in the bottom layer
(``pooling``) so that every layer may use it without importing upwards. The language
comes from ``QRELS_LANG`` (``en`` or ``zh``), else from the locale variables, else English.

Errors a user can act on are ``LocalizedError``: a message key and its parameters, rendered
when shown, so the same error reads in English on the command line and in Chinese in an
app session set to Chinese. A parameter that is itself a message key (a kind of thing, a
type name) is written ``"@key"``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

LANGUAGES = ("en", "zh")

MESSAGES: dict[str, dict[str, str]] = {
    # -- where an input error happened
    "at_file": {"en": "{file}", "zh": "{file}"},
    "at_line": {"en": "{file}, line {line}", "zh": "{file} 第 {line} 行"},
    "at_field": {
        "en": "{file}, line {line}, field '{field}'",
        "zh": "{file} 第 {line} 行，字段“{field}”",
    },
    "located": {"en": "{where}: {what}", "zh": "{where}：{what}"},
    # -- input errors
    "file_not_found": {"en": "file not found", "zh": "找不到文件"},
    "file_empty": {"en": "the file holds no records", "zh": "文件中没有任何记录"},
    "not_utf8": {
        "en": "not valid UTF-8 text ({detail})",
        "zh": "不是有效的 UTF-8 文本（{detail}）",
    },
    "bad_json": {"en": "not valid JSON: {detail}", "zh": "不是有效的 JSON：{detail}"},
    "not_object": {
        "en": "expected a JSON object, found {found}",
        "zh": "应为 JSON 对象，实际为 {found}",
    },
    "missing_field": {"en": "required field is missing", "zh": "缺少必填字段"},
    "empty_value": {"en": "must not be empty", "zh": "不能为空"},
    "empty_text": {
        "en": "text is empty (to keep empty documents as they are, use --allow-empty)",
        "zh": "文本为空（如需原样保留空文档，请使用 --allow-empty）",
    },
    "wrong_type": {
        "en": "expected {expected}, found {found}",
        "zh": "应为{expected}，实际为 {found}",
    },
    "bad_choice": {
        "en": "'{value}' is not one of: {choices}",
        "zh": "“{value}”不是可选值之一：{choices}",
    },
    "duplicate_id": {
        "en": "duplicate id '{value}' (first seen on line {first})",
        "zh": "重复的 id“{value}”（首次出现在第 {first} 行）",
    },
    "duplicate_pair": {
        "en": "duplicate entry for query '{query}' and chunk '{chunk}' "
        "(first seen on line {first})",
        "zh": "查询“{query}”与片段“{chunk}”的记录重复（首次出现在第 {first} 行）",
    },
    "unknown_query": {
        "en": "query id '{value}' is not in query set '{query_set}'",
        "zh": "查询集“{query_set}”中没有查询 id“{value}”",
    },
    "unknown_chunk": {
        "en": "chunk id '{value}' is not in corpus version '{corpus_version}'",
        "zh": "语料版本“{corpus_version}”中没有片段 id“{value}”",
    },
    "grade_range": {
        "en": "grade '{value}' is outside 0–3",
        "zh": "等级“{value}”不在 0–3 范围内",
    },
    "not_integer": {"en": "'{value}' is not an integer", "zh": "“{value}”不是整数"},
    "not_number": {"en": "'{value}' is not a finite number", "zh": "“{value}”不是有限数值"},
    "column_count": {
        "en": "expected {expected} whitespace-separated columns, found {found}",
        "zh": "应有 {expected} 列（以空白分隔），实际为 {found} 列",
    },
    "tsv_column_count": {
        "en": "expected 3 tab-separated columns (query-id, corpus-id, score), found {found}",
        "zh": "应有 3 列（以制表符分隔：query-id、corpus-id、score），实际为 {found} 列",
    },
    "unknown_judgment_format": {
        "en": "cannot tell the format: expected TREC qrels (4 columns), "
        "BEIR qrels TSV (header 'query-id corpus-id score') or JSONL",
        "zh": "无法识别格式：应为 TREC qrels（4 列）、"
        "BEIR qrels TSV（表头 query-id corpus-id score）或 JSONL",
    },
    "unsure_with_grade": {
        "en": "an unsure judgment has no grade; found grade '{value}'",
        "zh": "标为不确定的标注不应有等级，实际为“{value}”",
    },
    "chunk_params": {
        "en": "chunk overlap ({overlap}) must be at least 0 and smaller than chunk size ({size})",
        "zh": "片段重叠（{overlap}）必须不小于 0 且小于片段长度（{size}）",
    },
    # -- version and database errors
    "version_changed": {
        "en": "{kind} '{name}' already exists with different content; "
        "a version never changes meaning: import it under a new version name",
        "zh": "{kind}“{name}”已存在且内容不同；版本一旦发布含义不变，请使用新的版本名导入",
    },
    "version_unknown": {
        "en": "{kind} '{name}' does not exist (known: {known})",
        "zh": "{kind}“{name}”不存在（已有：{known}）",
    },
    "version_ambiguous": {
        "en": "the database holds several of {kind} ({known}); name one with {option}",
        "zh": "数据库中有多个{kind}（{known}），请用 {option} 指定",
    },
    "version_none": {
        "en": "the database holds no {kind}; import one first",
        "zh": "数据库中还没有{kind}，请先导入",
    },
    "system_kind_conflict": {
        "en": "system '{name}' already exists as kind '{kind}'",
        "zh": "系统“{name}”已存在，类型为“{kind}”",
    },
    "user_kind_conflict": {
        "en": "annotator '{name}' already exists as kind '{kind}'",
        "zh": "标注者“{name}”已存在，类型为“{kind}”",
    },
    "db_not_initialised": {
        "en": "the database at {url} has no qrels-studio schema; run `qrels init` first",
        "zh": "数据库 {url} 尚未建立 qrels-studio 表结构，请先运行 `qrels init`",
    },
    "db_outdated": {
        "en": "the database at {url} has schema {current}, this release needs {head}; "
        "run `qrels init` to upgrade (judgments are kept)",
        "zh": "数据库 {url} 的表结构版本为 {current}，本版本需要 {head}；"
        "请运行 `qrels init` 升级（已有标注会保留）",
    },
    "db_unreachable": {
        "en": "cannot connect to the database at {url}: {detail}",
        "zh": "无法连接数据库 {url}：{detail}",
    },
    # -- pools and systems
    "pool_unknown": {
        "en": "pool '{name}' does not exist (known: {known})",
        "zh": "候选池“{name}”不存在（已有：{known}）",
    },
    "pool_exists": {
        "en": "pool '{name}' already exists; a pool keeps its name: use `qrels pool topup` "
        "to add candidates or choose a new name",
        "zh": "候选池“{name}”已存在；如需增加候选请用 `qrels pool topup`，或换一个名称",
    },
    "run_unknown": {
        "en": "unknown run '{name}' for this query set and corpus version (imported runs: {known})",
        "zh": "该查询集与语料版本下没有名为“{name}”的运行结果（已导入：{known}）",
    },
    "overlap_positive": {
        "en": "overlap must be at least 1, got {value}",
        "zh": "重复标注数（overlap）至少为 1，实际为 {value}",
    },
    "size_positive": {
        "en": "{what} must be a whole number of at least 1, got {value}",
        "zh": "{what} 必须是不小于 1 的整数，实际为 {value}",
    },
    "unknown_name": {
        "en": "unknown {what} '{name}'; valid: {valid}",
        "zh": "未知的{what}“{name}”；可选：{valid}",
    },
    "what_system": {"en": "system", "zh": "系统"},
    "what_fusion": {"en": "fusion method", "zh": "融合方法"},
    "what_strategy": {"en": "pooling strategy", "zh": "建池策略"},
    "what_language": {"en": "language", "zh": "语言"},
    "what_segmenter": {"en": "Chinese segmenter", "zh": "中文分词方式"},
    "what_backend": {"en": "vector backend", "zh": "向量检索后端"},
    "what_encoder": {"en": "vector encoder", "zh": "向量编码器"},
    "no_systems": {"en": "no systems given; valid: {valid}", "zh": "未指定系统；可选：{valid}"},
    "system_twice": {"en": "system listed twice: {names}", "zh": "系统重复列出：{names}"},
    "fusion_needs_two": {
        "en": "a fusion method needs at least two other systems to fuse",
        "zh": "融合方法至少需要另外两个系统",
    },
    "nothing_to_fuse": {"en": "nothing to fuse: no runs given", "zh": "没有可融合的运行结果"},
    "budget_no_fusion_systems": {
        "en": "with a budget (and in active pooling) the candidates are fused with --fusion; "
        "list only retrievers and runs in the systems (found {names})",
        "zh": "按预算（以及主动建池）时由 --fusion 指定融合方法；系统中只列检索系统和运行结果"
        "（发现 {names}）",
    },
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
    "active_summary": {
        "en": "active pooling (budget {budget} per query, stop below {below} estimated "
        "relevant left): {chosen} chosen, {judged} judged, {relevant} relevant; queries going "
        "on {open}, stopped by budget {budget_spent}, by estimate {estimate}, with nothing "
        "left {exhausted}",
        "zh": "主动建池（每个查询预算 {budget}，估计剩余相关数低于 {below} 即停止）：已选 "
        "{chosen}，已判 {judged}，相关 {relevant}；进行中查询 {open}，因预算停止 "
        "{budget_spent}，因估计停止 {estimate}，候选已用尽 {exhausted}",
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
    # -- security and integrity
    "release_version_invalid": {
        "en": "'{version}' is not a release version: use letters, digits, '.', '_' and '-', "
        "starting with a letter or digit (at most 100 characters)",
        "zh": "“{version}”不是有效的发布版本：只能使用字母、数字、“.”、“_”和“-”，"
        "并以字母或数字开头（最多 100 个字符）",
    },
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
    "verify_not_recorded": {
        "en": "the database has no release '{version}': this folder is not a release it recorded",
        "zh": "数据库中没有发布“{version}”：此文件夹不是它记录过的发布",
    },
    "verify_not_as_recorded": {
        "en": "manifest.json is not the one recorded when release '{version}' was created: "
        "the folder was changed after release",
        "zh": "manifest.json 与创建发布“{version}”时记录的不同：文件夹在发布后被改动",
    },
    "upload_too_large": {
        "en": "{file}: larger than the {limit} MB an upload may hold (QRELS_UPLOAD_LIMIT_MB); "
        "nothing was read",
        "zh": "{file}：超过上传上限 {limit} MB（QRELS_UPLOAD_LIMIT_MB）；未读取任何内容",
    },
    "control_character": {
        "en": "holds the control character {code}, which is refused (NUL cannot be stored, "
        "the others act unseen on terminals and files; tab and line breaks only in texts)",
        "zh": "含有控制字符 {code}，不予接受（NUL 无法存储，其他控制字符会在终端和文件中"
        "暗中起作用；制表符和换行只允许出现在文本中）",
    },
    "id_with_space": {
        "en": "id '{value}' holds a space, which is refused: releases write ids into TREC files, "
        "whose fields are separated by spaces",
        "zh": "id“{value}”含有空格，不予接受：发布会把 id 写进以空格分隔字段的 TREC 文件",
    },
    # -- a folder of documents, a list of questions (pooling.document_folder, question_files)
    "folder_no_documents": {
        "en": "the folder holds no document to import (files ending {suffixes})",
        "zh": "文件夹中没有可导入的文档（扩展名为 {suffixes} 的文件）",
    },
    "folder_skipped": {
        "en": "{count} files passed over (not {suffixes}): {files}",
        "zh": "跳过 {count} 个文件（不是 {suffixes}）：{files}",
    },
    "file_name_control": {
        "en": "the file name holds the control character {code}, which is refused in an id",
        "zh": "文件名含有控制字符 {code}，不能用作 id",
    },
    "document_id_taken": {
        "en": "its id '{value}' (its path, spaces made _) is already the id of '{other}'",
        "zh": "其 id“{value}”（即路径，空白替换为 _）已是“{other}”的 id",
    },
    "documents_with_folder": {
        "en": "--documents is for chunk lines of a corpus.jsonl; the files of a folder are "
        "whole documents",
        "zh": "--documents 只用于 corpus.jsonl 中的片段行；文件夹中的文件本身就是完整文档",
    },
    "duplicate_question": {
        "en": "the same question as line {first}",
        "zh": "与第 {first} 行的问题相同",
    },
    "bad_csv": {"en": "not valid CSV: {detail}", "zh": "不是有效的 CSV：{detail}"},
    "csv_no_text_column": {
        "en": "the header has no 'text' column for the questions (it has: {found})",
        "zh": "表头中没有存放问题的“text”列（现有列：{found}）",
    },
    "csv_extra_cells": {
        "en": "{found} cells, more than the header's {expected} columns",
        "zh": "有 {found} 个单元格，多于表头的 {expected} 列",
    },
    "not_yes_no": {
        "en": "'{value}' is not true or false (also yes/no, 1/0)",
        "zh": "“{value}”不是 true 或 false（也可写 yes/no、1/0、是/否）",
    },
    "typed_control_character": {
        "en": "the {what} holds the control character {code}, which is refused (NUL cannot be "
        "stored, the others act unseen on terminals and files)",
        "zh": "{what}含有控制字符 {code}，不予接受（NUL 无法存储，其他控制字符会在终端和文件中"
        "暗中起作用）",
    },
    "what_note": {"en": "note", "zh": "备注"},
    "what_rationale": {"en": "rationale", "zh": "裁决理由"},
    "what_account_name": {"en": "account name", "zh": "账号名"},
    "rank_not_positive": {
        "en": "rank {value} is not a whole number from 1",
        "zh": "名次 {value} 不是从 1 起的整数",
    },
    "duplicate_rank": {
        "en": "rank repeated for query '{query}' (first seen on line {first})",
        "zh": "查询“{query}”的名次重复（首次出现在第 {first} 行）",
    },
    "cache_untrusted": {
        "en": "{path}: {reason}; an index is never loaded from there (loading one can run "
        "code). Point QRELS_CACHE_DIR at a folder of your own that only you can write to",
        "zh": "{path}：{reason}；不会从该处加载索引（加载索引可能执行代码）。"
        "请将 QRELS_CACHE_DIR 指向只有你自己可写的文件夹",
    },
    "cache_not_yours": {
        "en": "it belongs to user id {owner}, not to you ({uid})",
        "zh": "它属于用户 id {owner}，而不是你（{uid}）",
    },
    "cache_link": {"en": "it is a symbolic link", "zh": "它是符号链接"},
    "cache_writable": {
        "en": "others can write to it (mode {mode})",
        "zh": "其他人可以写入它（权限 {mode}）",
    },
    "internal_error": {
        "en": "Something went wrong on the server (incident {incident}). Nothing more is "
        "shown here; the lead can find the details in the server's log under that id.",
        "zh": "服务器出错（事件编号 {incident}）。此处不显示详情；"
        "负责人可凭该编号在服务器日志中查到。",
    },
    # -- accounts
    "password_short": {
        "en": "the password must have at least {length} characters",
        "zh": "密码至少需要 {length} 个字符",
    },
    "user_name_empty": {"en": "the user name must not be empty", "zh": "用户名不能为空"},
    "user_exists": {"en": "user '{name}' already exists", "zh": "用户“{name}”已存在"},
    "user_unknown": {"en": "user '{name}' does not exist", "zh": "用户“{name}”不存在"},
    "account_cannot_act": {
        "en": "this account is disabled or cannot log in: nothing was saved",
        "zh": "该账户已停用或不能登录：没有保存任何内容",
    },
    "role_needed": {
        "en": "only a {role} may do this; {name} is not one: nothing was saved",
        "zh": "只有{role}可以执行此操作；{name} 不是：没有保存任何内容",
    },
    "not_yours": {
        "en": "this item is held by another annotator: nothing was saved",
        "zh": "该条目由其他标注者持有：没有保存任何内容",
    },
    "user_added": {
        "en": "added {role} '{name}'",
        "zh": "已添加{role}“{name}”",
    },
    "user_disabled": {
        "en": "disabled '{name}': they can no longer log in; their judgments are kept",
        "zh": "已停用“{name}”：不能再登录，其标注均保留",
    },
    "passwords_differ": {"en": "the passwords differ", "zh": "两次输入的密码不一致"},
    "password_file_empty": {
        "en": "{file}: the first line holds no password",
        "zh": "{file}：第一行没有密码",
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
    "what_measure": {"en": "agreement measure", "zh": "一致性指标"},
    "what_period": {"en": "period", "zh": "时间单位"},
    "app_title": {"en": "qrels-studio", "zh": "qrels-studio 相关性标注"},
    "login_title": {"en": "Log in", "zh": "登录"},
    "login_name": {"en": "User name", "zh": "用户名"},
    "login_password": {"en": "Password", "zh": "密码"},
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
    "role_annotator": {"en": "annotator", "zh": "标注者"},
    "role_lead": {"en": "lead", "zh": "负责人"},
    "language": {"en": "Language", "zh": "语言"},
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
        "en": "There is no pool to judge yet. A lead builds one on the Pools page "
        "(“Build a pool”).",
        "zh": "还没有可标注的候选池。负责人可在“候选池”页面（“建立候选池”）建立。",
    },
    # The app's own words for errors whose command-line message names an option: the app
    # never asks a person to type a command (ui.plain shows these instead).
    "app_release_unresolved": {
        "en": "{count} candidates are unresolved (e.g. {query} / {chunk}): decide them on the "
        "Adjudication page, or tick “Leave unresolved candidates out” above to leave them out "
        "and count them in the manifest",
        "zh": "有 {count} 个候选尚未解决（例如 {query} / {chunk}）：请在“裁定”页面裁定，"
        "或勾选上方的“排除未解决的候选”，将其排除并在清单中计数",
    },
    "app_pool_exists": {
        "en": "pool '{name}' already exists; a pool keeps its name: add candidates to it with "
        "“Top up this pool”, or choose another name",
        "zh": "候选池“{name}”已存在；候选池名称不变：如需增加候选请用“为此候选池补充候选”，"
        "或换一个名称",
    },
    "app_eval_low_judged": {
        "en": "warning: low Judged@k for {run} [{group}]: {judged}; unjudged items count as "
        "non-relevant, so its figures may be too low. To have them judged: on the Releases "
        "page, upload this run under “Coverage of a new run” and add its unjudged chunks to "
        "the pool",
        "zh": "警告：{run} [{group}] 的 Judged@k 偏低：{judged}；未标注项按不相关计，"
        "其数值可能偏低。如需补充标注：在“发布”页面的“新运行结果的覆盖情况”中上传此运行结果，"
        "并把未标注的片段加入候选池",
    },
    "all_done": {
        "en": "Nothing left for you in this pool. Thank you!",
        "zh": "这个候选池里已经没有需要你标注的内容了，谢谢！",
    },
    "query": {"en": "Query", "zh": "查询"},
    "query_notes": {"en": "Notes on this query", "zh": "查询说明"},
    "chunk": {"en": "Passage", "zh": "片段"},
    "from_document": {"en": "From: {title}", "zh": "出自：{title}"},
    "show_context": {"en": "Show the passages before and after", "zh": "显示前后相邻片段"},
    "context_before": {"en": "Before", "zh": "前一段"},
    "context_after": {"en": "After", "zh": "后一段"},
    "context_none": {"en": "(none)", "zh": "（无）"},
    "note": {"en": "Note (optional; required for unsure)", "zh": "备注（可选；标为不确定时必填）"},
    "grade_button": {"en": "{grade} · {label}", "zh": "{grade} · {label}"},
    # -- gold items
    "gold_added": {
        "en": "pool '{pool}': {added} gold items added ({new} of them new candidates); "
        "{already} were gold already",
        "zh": "候选池“{pool}”：新增 {added} 个金标条目（其中 {new} 个是新候选）；"
        "{already} 个已是金标",
    },
    "gold_settings_line": {
        "en": "pool '{pool}': one gold item in {rate}; annotators flagged below kappa {floor}; "
        "their own figures shown: {show}, after {min_seen} gold items",
        "zh": "候选池“{pool}”：每 {rate} 条插入 1 个金标条目；kappa 低于 {floor} 的标注者被标记；"
        "向标注者显示其成绩：{show}，在看过 {min_seen} 个金标条目之后",
    },
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
    "previous_button": {"en": "← Back", "zh": "← 上一条"},
    "next_button": {"en": "Forward →", "zh": "下一条 →"},
    "back_to_current": {"en": "Back to the current item", "zh": "回到当前条目"},
    "unsure_needs_note": {
        "en": "Write a note saying why you are unsure, then press Unsure again (Esc leaves "
        "the note field).",
        "zh": "请在备注中写明不确定的原因，然后再按“不确定”（按 Esc 离开备注框）。",
    },
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
    "progress_pool": {"en": "This pool: {done} / {total}", "zh": "本候选池：{done} / {total}"},
    "keys_help": {
        "en": "Keys: 0–3 grade · u unsure · s skip · n note · b back · f forward · Esc leaves "
        "the note",
        "zh": "快捷键：0–3 评分 · u 不确定 · s 跳过 · n 备注 · b 上一条 · f 下一条 · "
        "Esc 离开备注框",
    },
    "rubric": {"en": "Rubric", "zh": "标注规则"},
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
    "team_table": {"en": "Judgments per annotator", "zh": "各标注者的标注数"},
    "col_query": {"en": "query", "zh": "查询"},
    "col_judged": {"en": "judged", "zh": "已标注"},
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
    "field_active": {
        "en": "Active pooling (choose what to judge next from the judgments so far)",
        "zh": "主动建池（根据已有判断选择下一个要判断的候选）",
    },
    "field_budget": {"en": "Active: judgments per query at most", "zh": "主动：每个查询最多判断数"},
    "field_stop_below": {
        "en": "Active: stop a query below this many estimated relevant left",
        "zh": "主动：估计剩余相关数低于此值时停止该查询",
    },
    "active_title": {"en": "Active pooling: where each query stands", "zh": "主动建池：各查询进度"},
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
    "policy": {"en": "Disagreement policy", "zh": "分歧判定规则"},
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
    "queue_count_all": {
        "en": "{shown} candidates shown, of which {count} need a decision",
        "zh": "显示 {shown} 个候选，其中 {count} 个需要裁定",
    },
    "queue_first": {
        "en": "The {shown} most severe are offered; filter by query, slice or annotator for others",
        "zh": "列出最严重的 {shown} 个；其他候选请按查询、切片或标注者筛选",
    },
    "candidate": {"en": "Candidate", "zh": "候选"},
    "grades_given": {"en": "Grades given", "zh": "已给出的评分"},
    "final_grade": {"en": "Final grade", "zh": "最终等级"},
    "rationale": {"en": "Rationale (required)", "zh": "理由（必填）"},
    "decide_button": {"en": "Record decision", "zh": "记录裁定"},
    "decided": {
        "en": "Recorded: {query} / {chunk} → {grade}",
        "zh": "已记录：{query} / {chunk} → {grade}",
    },
    "current_decision": {
        "en": "Current decision: {grade} ({why})",
        "zh": "当前裁定：{grade}（{why}）",
    },
    "alpha_line": {
        "en": "Krippendorff's alpha (ordinal): {value}",
        "zh": "Krippendorff's alpha（有序）：{value}",
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
    "versus_final_why": {
        "en": "Why these run higher than alpha: the final grades are made of the annotators' "
        "own grades (agreed ones, and the lead's decisions on the rest), so each annotator "
        "partly agrees with themself here; alpha compares annotators only with each other, "
        "and corrects for the agreement chance alone would give.",
        "zh": "为什么这些数值高于 alpha：最终等级本身来自标注者的打分（一致的打分，"
        "以及组长对其余的裁定），因此这里每位标注者部分是在与自己比较；"
        "alpha 只比较标注者彼此之间，并扣除了偶然一致的部分。",
    },
    "versus_final": {
        "en": "Each annotator against the final grades (quadratic kappa), before and after "
        "adjudication",
        "zh": "各标注者与最终等级的一致性（二次加权 kappa），裁定前后对比",
    },
    "col_before": {"en": "before", "zh": "裁定前"},
    "col_after": {"en": "after", "zh": "裁定后"},
    "group_by": {"en": "Break down by", "zh": "分组方式"},
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
    "coverage_run": {"en": "TREC run file", "zh": "TREC 运行结果文件"},
    "coverage_unjudged": {
        "en": "{count} unjudged chunks in the top {k}",
        "zh": "前 {k} 名中有 {count} 个未标注片段",
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
    "pool_complete": {
        "en": "{complete} of {candidates} candidates have their {overlap} judgments",
        "zh": "{candidates} 个候选中已有 {complete} 个获得 {overlap} 份标注",
    },
    # -- grades, judgments, adjudication
    "unsure_note_missing": {
        "en": "an unsure judgment needs a note saying why",
        "zh": "标为不确定的标注需要写明原因",
    },
    "rationale_missing": {
        "en": "an adjudication needs a short rationale",
        "zh": "裁定需要简短的理由",
    },
    "leads_only": {
        "en": "only leads adjudicate; {name} is an {role}",
        "zh": "只有负责人可以裁定；{name} 的角色是{role}",
    },
    "judgments_at_least_one": {
        "en": "a candidate needs at least 1 judgment, got {count}",
        "zh": "每个候选至少需要 1 份标注，实际为 {count}",
    },
    "not_a_candidate": {
        "en": "({query}, {chunk}) is not a candidate of pool '{pool}'",
        "zh": "（{query}，{chunk}）不是候选池“{pool}”中的候选",
    },
    "rubrics_missing": {
        "en": "rubrics/ not found beside the packages or in share/qrels-studio",
        "zh": "在程序包旁或 share/qrels-studio 中找不到 rubrics/",
    },
    "what_policy": {"en": "policy", "zh": "分歧判定规则"},
    "what_kappa": {"en": "kappa", "zh": "kappa 类型"},
    "what_grouping": {"en": "grouping", "zh": "分组方式"},
    "what_qrels_format": {"en": "qrels format", "zh": "qrels 格式"},
    "figure_undefined": {"en": "undefined: {reason}", "zh": "无法计算：{reason}"},
    "reason_few_shared": {"en": "fewer than two shared items", "zh": "共同条目少于两个"},
    "reason_one_grade": {
        "en": "only one grade in use: chance agreement is certain",
        "zh": "只用到一个等级：偶然一致的概率为 1",
    },
    "reason_no_pairs": {"en": "no item has two judgments", "zh": "没有条目有两份标注"},
    "reason_no_shared": {"en": "no shared items", "zh": "没有共同条目"},
    "agreement_group": {
        "en": "{group}: {items} items, annotators {annotators}",
        "zh": "{group}：{items} 个条目，标注者 {annotators}",
    },
    "agreement_pair": {
        "en": "{a} × {b}: {shared} shared, agreement {percent}; kappa {kappas}",
        "zh": "{a} × {b}：共同 {shared} 个，一致率 {percent}；kappa {kappas}",
    },
    "calibration_head": {
        "en": "{judge} against {release}: {shared} shared candidates",
        "zh": "{judge} 对照 {release}：共同候选 {shared} 个",
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
    "page_judge": {"en": "Judge", "zh": "模型评判"},
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
    "judge_base_url": {
        "en": "'{url}' is not a base URL to use: http(s)://host[:port]/path, without a user, "
        "password, query or fragment (a key goes in an environment variable: --api-key-env)",
        "zh": "“{url}”不能用作基础 URL：应为 http(s)://主机[:端口]/路径，不含用户名、密码、查询参数或片段"
        "（密钥请放在环境变量中：--api-key-env）",
    },
    "app_judge_base_url": {
        "en": "'{url}' is not a base URL to use: http(s)://host[:port]/path, without a user, "
        "password, query or fragment (a key goes in an environment variable, named in the "
        "field below)",
        "zh": "“{url}”不能用作基础 URL：应为 http(s)://主机[:端口]/路径，不含用户名、密码、"
        "查询参数或片段（密钥请放在环境变量中，在下方字段填写其名称）",
    },
    "judge_key_variable_name": {
        "en": "'{variable}' is not the name of an API-key variable: it must end in _API_KEY "
        "(upper case, digits and _), e.g. OPENAI_API_KEY",
        "zh": "“{variable}”不是 API 密钥变量名：必须以 _API_KEY 结尾（大写字母、数字和 _），"
        "例如 OPENAI_API_KEY",
    },
    "judge_key_variable_unset": {
        "en": "environment variable {variable} is not set where the judge runs",
        "zh": "运行评判的环境中未设置环境变量 {variable}",
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
    "judge_status_running": {"en": "running", "zh": "运行中"},
    "judge_status_done": {"en": "done", "zh": "已完成"},
    "judge_status_stopped": {"en": "stopped", "zh": "已停止"},
    "judge_status_failed": {"en": "failed", "zh": "失败"},
    "judge_run_error": {"en": "stopped because: {error}", "zh": "停止原因：{error}"},
    "judge_interrupted": {
        "en": "interrupted: every answer received so far is saved; run the same command to go on",
        "zh": "已中断：目前收到的回答均已保存；再次运行同一命令即可继续",
    },
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
    "judge_report_pool_grades": {
        "en": "the final grades of pool {pool}",
        "zh": "候选池 {pool} 的最终等级",
    },
    "judge_report_no_calibration": {
        "en": "no calibration yet: people have graded none of the candidates the model graded",
        "zh": "暂无校准：模型定级的候选还没有任何一个经过人工定级",
    },
    "judge_report_review": {
        "en": "for people to see ({count}):",
        "zh": "需要人工查看（{count} 个）：",
    },
    "judge_report_no_probabilities": {
        "en": "the server sent no token probabilities: the least sure grades cannot be listed",
        "zh": "服务器未返回 token 概率：无法列出最没有把握的等级",
    },
    "judge_report_calibrate": {
        "en": "the same against a release: qrels calibrate --judge '{judge}' --release DIR",
        "zh": "对照某个发布版本：qrels calibrate --judge '{judge}' --release DIR",
    },
    "judge_why_failed": {"en": "failed", "zh": "失败"},
    "judge_why_misquoted": {"en": "misquoted", "zh": "引用不实"},
    "judge_why_flagged": {"en": "flagged", "zh": "已标记"},
    "judge_why_uncertain": {"en": "least sure", "zh": "最没把握"},
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
        "en": "run {run} has not been heard from since {time}: its process may have ended",
        "zh": "第 {run} 次运行自 {time} 起没有任何更新：其进程可能已结束",
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
        "en": "Against the pool's final grades (the figures a calibration against a release "
        "of the pool gives)",
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
    "col_evidence": {"en": "evidence", "zh": "证据"},
    "col_detail": {"en": "detail", "zh": "详情"},
    "col_figure": {"en": "figure", "zh": "指标"},
    "col_run": {"en": "run", "zh": "运行"},
    "col_model_asked": {"en": "model asked for", "zh": "请求的模型"},
    "col_served_model": {"en": "model the server reported", "zh": "服务器报告的模型"},
    "col_prompt": {"en": "prompt (hash)", "zh": "提示词（哈希）"},
    "col_status": {"en": "status", "zh": "状态"},
    "candidate_status_disagree": {"en": "disagree", "zh": "有分歧"},
    "candidate_status_unsure": {"en": "unsure", "zh": "不确定"},
    "candidate_status_adjudicated": {"en": "decided by a lead", "zh": "组长已裁决"},
    "candidate_status_agreed": {"en": "agreed", "zh": "一致"},
    "candidate_status_incomplete": {"en": "waiting for judgments", "zh": "等待更多标注"},
    "chart_statuses": {
        "en": "Judged candidates per query, by status",
        "zh": "各查询已标注候选的状态",
    },
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
    "what_metric": {"en": "metric", "zh": "指标"},
    "what_level": {"en": "level", "zh": "粒度"},
    "what_split": {"en": "split", "zh": "数据划分"},
    "metric_needs_k": {
        "en": "{metric} needs a cutoff: write {metric}@k (e.g. {metric}@10)",
        "zh": "{metric} 需要截断位置：请写成 {metric}@k（例如 {metric}@10）",
    },
    "metric_takes_no_k": {
        "en": "{metric} takes no cutoff: trec_eval computes it over the whole ranking; write "
        "{metric}",
        "zh": "{metric} 不接受截断位置：trec_eval 在整个排序上计算它；请写成 {metric}",
    },
    "threshold_range": {
        "en": "the relevance threshold must be a grade from 1 to 3, got {value}",
        "zh": "相关性阈值必须是 1 到 3 之间的等级，实际为 {value}",
    },
    "metrics_none": {"en": "no metric given", "zh": "没有给出任何指标"},
    "release_not_intact": {
        "en": "release {folder} does not match its manifest: {problems}",
        "zh": "发布 {folder} 与其清单不符：{problems}",
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
    "evaluate_no_runs": {"en": "give at least one run", "zh": "请至少提供一个运行结果"},
    "run_name_repeated": {
        "en": "two runs are named '{name}' ({first} and {second}): name each apart with "
        "--name, one per --run in order (a run is named by --name, else by its TREC tag "
        "column when it has one tag, else by its file name)",
        "zh": "两个运行结果同名“{name}”（{first} 与 {second}）：请用 --name 为每个 --run 依次"
        "命名（运行结果的名称依次取 --name、只有一个 TREC 标签时的标签列、文件名）",
    },
    "run_names_count": {
        "en": "{names} --name for {runs} --run: give one name per run, in the order of --run, "
        "or none",
        "zh": "给了 {names} 个 --name，却有 {runs} 个 --run：请按 --run 的顺序为每个运行结果各给"
        "一个名称，或者都不给",
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
    "diff_counted": {
        "en": "the metrics average over {before} -> {after} queries (answerable, with a chunk "
        "graded 1 or more; qrels evaluate lists the others and why)",
        "zh": "指标平均所覆盖的查询：{before} -> {after} 条（可回答且有等级 1 及以上的片段；"
        "其余查询及原因见 qrels evaluate）",
    },
    "eval_release": {"en": "Release", "zh": "发布版本"},
    "eval_runs": {
        "en": "TREC run files (the first is the baseline)",
        "zh": "TREC 运行结果文件（第一个为基线）",
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
        "en": "Upload one or more TREC runs to evaluate them against the release.",
        "zh": "上传一个或多个 TREC 运行结果，以该发布评估它们。",
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
    "release_written": {
        "en": "release {version}: {graded} graded candidates ({per_grade}), {unresolved} "
        "unresolved left out, {without_grade_2} queries without a chunk graded 2+ -> {folder}",
        "zh": "发布 {version}：{graded} 个已定级候选（{per_grade}），排除未解决 {unresolved} 个，"
        "{without_grade_2} 条查询没有 2 级及以上的片段 -> {folder}",
    },
    "release_intact": {"en": "{folder}: intact", "zh": "{folder}：完好"},
    "verify_manifest_unreadable": {
        "en": "manifest.json: cannot be read ({detail})",
        "zh": "manifest.json：无法读取（{detail}）",
    },
    "verify_missing": {"en": "{file}: missing", "zh": "{file}：缺失"},
    "verify_changed": {
        "en": "{file}: sha256 differs from the manifest (changed after release)",
        "zh": "{file}：sha256 与清单不符（发布后被改动）",
    },
    "unknown_qrels_format": {
        "en": "expected TREC qrels (4 columns) or BEIR qrels TSV "
        "(header 'query-id corpus-id score')",
        "zh": "应为 TREC qrels（4 列）或 BEIR qrels TSV（表头 query-id corpus-id score）",
    },
    "diff_counts": {
        "en": "added {added}, removed {removed}, changed {changed}",
        "zh": "新增 {added}，删除 {removed}，改变 {changed}",
    },
    "rank_at": {"en": "rank {rank}", "zh": "第 {rank} 名"},
    # -- metric estimates from a model judge and a human sample
    "estimate_lengths": {
        "en": "per-query values differ in length ({lengths})",
        "zh": "逐查询数值的长度不一致（{lengths}）",
    },
    "estimate_probability": {
        "en": "an inclusion probability must be in (0, 1], found {value}",
        "zh": "入样概率必须在 (0, 1] 之内，实际为 {value}",
    },
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
    "estimate_section": {
        "en": "Estimates from a model judge and the human sample",
        "zh": "基于模型评审与人工样本的估计",
    },
    "estimate_choose_model": {"en": "Model judge", "zh": "模型评审"},
    "estimate_off": {"en": "(no estimates)", "zh": "（不估计）"},
    "estimate_unavailable": {
        "en": "This release holds no model grades or no sample of queries judged by people.",
        "zh": "该发布不含模型评分或人工标注的查询样本。",
    },
    "estimate_differences": {
        "en": "Estimated differences from the baseline",
        "zh": "与基线之差的估计",
    },
    "what_sample_design": {"en": "sample design", "zh": "抽样方式"},
    "sample_size_syntax": {
        "en": "'{value}' is not a number of queries (50) or a share of them (20%)",
        "zh": "“{value}”既不是查询数（如 50），也不是查询占比（如 20%）",
    },
    "sample_size_range": {
        "en": "'{value}' gives {size} queries; between 1 and {population} can be drawn",
        "zh": "“{value}”对应 {size} 条查询；可抽取的数目为 1 到 {population}",
    },
    "sample_strata_small": {
        "en": "{size} queries cannot give each of the {strata} strata its minimum "
        "({needed} in all); ask for more or sample without --by slice",
        "zh": "{size} 条查询不足以让 {strata} 个分层各得到最低数目（共需 {needed} 条）；"
        "请增加数目，或不用 --by slice",
    },
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
    "sample_query_unknown": {
        "en": "query '{query}' is not in the pool's query set",
        "zh": "查询“{query}”不在该池的查询集中",
    },
    "sample_design_uniform": {"en": "uniform", "zh": "等概率"},
    "sample_design_stratified": {"en": "stratified by slice", "zh": "按切片分层"},
    "sample_design_uncertainty": {
        "en": "by the model's uncertainty",
        "zh": "按模型的不确定度",
    },
    "sample_drawn": {
        "en": "pool {pool}: {size} of {population} queries drawn ({design}, seed {seed}); "
        "people judge them completely, and the app hands them out first",
        "zh": "池 {pool}：从 {population} 条查询中抽取 {size} 条（{design}，种子 {seed}）；"
        "由人工完整标注，应用会优先分派这些查询",
    },
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
    "parent_not_in_documents": {
        "en": "document '{value}' is not in the documents file (--documents)",
        "zh": "文档文件（--documents）中没有文档“{value}”",
    },
    "document_has_parent": {
        "en": "a documents file holds whole documents, but this line names a parent",
        "zh": "文档文件应只含完整文档，但此行指定了父文档",
    },
    "span_ambiguous": {
        "en": "{file}, line {line}: chunk '{chunk}': its text occurs at {places} places in "
        "document '{document}' (a repeated passage): no span recorded",
        "zh": "{file} 第 {line} 行：片段“{chunk}”的文本在文档“{document}”中出现 {places} 处"
        "（重复段落）：未记录位置",
    },
    "span_not_found": {
        "en": "{file}, line {line}: chunk '{chunk}': its text is not in document "
        "'{document}': no span recorded",
        "zh": "{file} 第 {line} 行：片段“{chunk}”的文本不在文档“{document}”中：未记录位置",
    },
    "spans_no_documents": {
        "en": "{chunks} chunks of {documents} documents have no span: their documents' texts "
        "were not given (--documents FILE); judgments on them cannot be carried to another "
        "chunking",
        "zh": "{documents} 篇文档的 {chunks} 个片段没有位置：未提供其文档全文（--documents FILE）；"
        "这些片段上的标注无法迁移到其他切分",
    },
    "documents_unused": {
        "en": "{count} documents of the documents file have no chunk here: not imported",
        "zh": "文档文件中有 {count} 篇文档在此没有片段：未导入",
    },
    "spans_recorded": {
        "en": "recorded the spans of {chunks} chunks that had none",
        "zh": "已为 {chunks} 个原无位置的片段记录位置",
    },
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
    "carry_title": {
        "en": "Carried from release {release} (corpus version {corpus_version}, chunking "
        "{chunking}; min overlap {min_overlap})",
        "zh": "迁移自发布 {release}（语料版本 {corpus_version}，切分 {chunking}；"
        "最小重叠 {min_overlap}）",
    },
    "carry_status_line": {
        "en": "{mapping}: {judged} judged in the release, {candidates} candidates here, "
        "{re_judged} re-judged",
        "zh": "{mapping}：发布中已定级 {judged} 个，此处候选 {candidates} 个，"
        "已重新标注 {re_judged} 个",
    },
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
    "carry_section": {
        "en": "Carried across a chunking change",
        "zh": "跨切分变化迁移的标注",
    },
    "accept_carried": {
        "en": "Accept carried 'same text' grades nobody re-judged (dev queries only)",
        "zh": "接受无人重新标注的“文本相同”迁移等级（仅 dev 查询）",
    },
    "min_overlap_range": {
        "en": "--min-overlap is a share of characters above 0 and at most 1, got {value}",
        "zh": "--min-overlap 应为大于 0 且不超过 1 的字符比例，实际为 {value}",
    },
    "pool_required": {
        "en": "{name}: {query} / {chunk} now needs {count} judgments",
        "zh": "{name}：{query} / {chunk} 现在需要 {count} 份标注",
    },
    "pool_show_head": {
        "en": "{name}: {systems} ({strategy} {size}, overlap {overlap})",
        "zh": "{name}：{systems}（{strategy} {size}，每个候选 {overlap} 份标注）",
    },
    "chunker_params": {
        "en": "need size >= 1 and 0 <= overlap < size, got size={size} overlap={overlap}",
        "zh": "需要 size >= 1 且 0 <= overlap < size，实际 size={size} overlap={overlap}",
    },
    "needs_install": {
        "en": "{what} is not installed: pip install {package}",
        "zh": "未安装 {what}：pip install {package}",
    },
    "st_model_missing": {
        "en": "no sentence-transformers model at {path}",
        "zh": "{path} 处没有 sentence-transformers 模型",
    },
    "embeddings_missing": {
        "en": "precomputed embeddings: {path} is missing",
        "zh": "预计算向量：缺少 {path}",
    },
    "embeddings_shape": {
        "en": "{path}: shape {shape} does not match the {count} ids in {ids}",
        "zh": "{path}：形状 {shape} 与 {ids} 中的 {count} 个 id 不符",
    },
    "embeddings_without": {
        "en": "{count} {what} have no precomputed vector, e.g. {example}",
        "zh": "{count} 个{what}没有预计算向量，例如 {example}",
    },
    "kind_chunks": {"en": "chunks", "zh": "片段"},
    "kind_queries": {"en": "queries", "zh": "查询"},
    # -- kinds, as named in messages
    "kind_corpus_version": {"en": "corpus version", "zh": "语料版本"},
    "kind_query_set": {"en": "query set", "zh": "查询集"},
    "kind_run": {"en": "run of system", "zh": "系统运行结果"},
    # -- type names used in wrong_type
    "type_string": {"en": "a string", "zh": "字符串"},
    "type_object": {"en": "an object", "zh": "对象"},
    "type_bool": {"en": "true or false", "zh": "true 或 false"},
    "type_string_list": {"en": "a list of strings", "zh": "字符串列表"},
    "type_number": {"en": "a number", "zh": "数值"},
    # -- CLI reports
    "error": {"en": "error", "zh": "错误"},
    "cli_interrupted": {"en": "interrupted", "zh": "已中断"},
    "init_done": {
        "en": "database ready at {url} (schema {head})",
        "zh": "数据库已就绪：{url}（表结构 {head}）",
    },
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
    "imported_judgments": {
        "en": "imported {judgments} judgments by '{name}' ({format}) "
        "for query set '{query_set}' and corpus version '{corpus_version}'",
        "zh": "已导入“{name}”的 {judgments} 条标注（{format}），"
        "查询集“{query_set}”，语料版本“{corpus_version}”",
    },
    "unchanged": {
        "en": "{kind} '{name}' is already in the database with identical content: nothing to do",
        "zh": "{kind}“{name}”已存在且内容相同：无需导入",
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
        "zh": "{name}（{query_set} × {corpus_version}；检索系统 {systems}）：{candidates} 个候选，"
        "{complete} 个已有 {overlap} 份标注（{percent}）",
    },
    "status_users": {
        "en": "accounts: {leads} leads, {annotators} annotators",
        "zh": "账户：负责人 {leads} 名，标注者 {annotators} 名",
    },
    "status_none": {"en": "(none)", "zh": "（无）"},
    "serving": {
        "en": "starting the app at {url} (Ctrl+C stops it)",
        "zh": "正在启动应用：{url}（按 Ctrl+C 停止）",
    },
    "demo_campaign": {
        "en": "a campaign in progress: {judgments} judgments by {annotators} annotators over "
        "three days ({left} judgments still to make), {decisions} lead decisions, {gold} gold "
        "item, release {release}",
        "zh": "进行中的标注项目：{annotators} 位标注员三天内完成 {judgments} 条标注（还有 {left} "
        "条待标注），组长裁决 {decisions} 条，金标准 {gold} 条，发布版本 {release}",
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


def current_language() -> str:
    """The language for messages: ``QRELS_LANG``, else the locale, else English."""
    explicit = os.environ.get("QRELS_LANG", "").strip().lower()
    if explicit in LANGUAGES:
        return explicit
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "").lower()
        if value:
            return "zh" if value.startswith("zh") else "en"
    return "en"


def t(key: str, lang: str | None = None, **params: object) -> str:
    """The message ``key`` in ``lang`` (default: the current language), filled with params;
    a parameter ``"@other_key"`` is replaced by that message first."""
    lang = lang or current_language()
    filled = {k: t(v[1:], lang) if _is_key(v) else v for k, v in params.items()}
    return MESSAGES[key][lang].format(**filled)


def _is_key(value: object) -> bool:
    return isinstance(value, str) and value.startswith("@") and value[1:] in MESSAGES


class LocalizedError(ValueError):
    """An error for the user: message ``key`` with ``params``, rendered in the current
    language by ``str()`` and in any language by ``message(lang)``."""

    def __init__(self, key: str, **params: object) -> None:
        self.key, self.params = key, params
        super().__init__(key)

    def message(self, lang: str | None = None) -> str:
        return t(self.key, lang, **self.params)

    def __str__(self) -> str:
        return self.message()


class NotFound(LocalizedError, LookupError):
    """A named thing (version, pool, user, run) does not exist, or a name is needed to
    choose among several."""


class Refused(LocalizedError, PermissionError):
    """The acting account may not do this: disabled, gone, or without the role."""


def check_name(name: str, valid: Iterable[str], what: str) -> None:
    """Raise ``LocalizedError`` naming the valid choices unless ``name`` is one of ``valid``
    (``what`` is the message key of what is being chosen, e.g. ``what_fusion``): the one way
    a registry refuses an unknown name."""
    valid = list(valid)
    if name not in valid:
        raise LocalizedError("unknown_name", what=f"@{what}", name=name, valid=", ".join(valid))
