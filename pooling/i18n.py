"""User-facing messages in English and Chinese, and the errors that carry them.

Every message a user can see is looked up by key in one table, ``MESSAGES``, so that the
CLI, the app and the errors raised anywhere speak the same language. This module holds the
keys of ``pooling`` and ``storage``; a layer above keeps its own beside the code that shows
them and adds them with ``register`` (``annotator.messages``, ``annotator.app.page_messages``,
``annotator.cli.cli_messages``), and tests/test_messages.py checks that no key sits lower
than its users. The language comes from ``QRELS_LANG`` (``en`` or ``zh``), else from the
locale variables, else English.

Errors a user can act on are ``LocalizedError``: a message key and its parameters, rendered
when shown, so the same error reads in English on the command line and in Chinese in an
app session set to Chinese. A parameter that is itself a message key (a kind of thing, a
type name) is written ``"@key"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath
from typing import TypeGuard

from pooling import choices

LANGUAGES = choices.LANGUAGES

MESSAGES: dict[str, dict[str, str]] = {
    # -- a folder of documents, a list of questions (pooling.document_folder, question_files)
    "folder_no_documents": {
        "en": "the folder holds no document to import (files ending {suffixes})",
        "zh": "文件夹中没有可导入的文档（扩展名为 {suffixes} 的文件）",
    },
    "folder_skipped": {
        "en": "{count} files passed over (not {suffixes}): {files}",
        "zh": "跳过 {count} 个文件（不是 {suffixes}）：{files}",
    },
    "folder_skipped_outside": {
        "en": "{count} files passed over (links that lead out of the folder): {files}",
        "zh": "跳过 {count} 个文件（指向文件夹之外的链接）：{files}",
    },
    "folder_skipped_special": {
        "en": "{count} files passed over (not regular files: FIFOs, devices, sockets, broken "
        "links): {files}",
        "zh": "跳过 {count} 个文件（不是普通文件：管道、设备、套接字、失效链接）：{files}",
    },
    "file_name_format": {
        "en": "the file name holds the invisible format character {code} (a bidi control, a "
        "zero-width space or joiner, a soft hyphen), which is refused in an id",
        "zh": "文件名含有不可见的格式字符 {code}（双向文本控制符、零宽空格或连接符、软连字符），"
        "不能用作 id",
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
        "en": "--documents is for chunk lines of a corpus.jsonl; the files of a folder are whole "
        "documents",
        "zh": "--documents 只用于 corpus.jsonl 中的片段行；文件夹中的文件本身就是完整文档",
    },
    "pages_without_text": {
        "en": "{file}: page(s) {pages} left out: no text layer (a scan?), and there is no OCR",
        "zh": "{file}：第 {pages} 页未导入：没有文字层（扫描件？），本工具不做 OCR",
    },
    "pdf_encrypted": {
        "en": "the PDF is encrypted: save it without a password, then import it again",
        "zh": "该 PDF 已加密：请先另存为无密码的文件，再重新导入",
    },
    "pdf_truncated": {
        "en": "the PDF is cut short (no %%EOF at its end): copy the whole file again",
        "zh": "该 PDF 不完整（末尾没有 %%EOF）：请重新复制完整的文件",
    },
    "document_unreadable": {
        "en": "cannot be read as a document of its kind: {detail}",
        "zh": "无法按其类型读取：{detail}",
    },
    "place_page": {"en": "page {pages}", "zh": "第 {pages} 页"},
    "place_pages": {"en": "pages {pages}", "zh": "第 {pages} 页"},
    "duplicate_question": {
        "en": "the same question as line {first}",
        "zh": "与第 {first} 行的问题相同",
    },
    "bad_csv": {
        "en": "not valid CSV: {detail}",
        "zh": "不是有效的 CSV：{detail}",
    },
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
    # -- run files (pooling.run_formats)
    "unknown_run_format": {
        "en": "cannot tell the format: expected a TREC run (6 columns: qid Q0 docid rank "
        "score tag), JSONL (query_id, chunk_id or doc_id, score, optional rank) or a CSV "
        "whose header names query_id, chunk_id or doc_id, and score",
        "zh": "无法识别格式：应为 TREC 运行文件（6 列：qid Q0 docid rank score tag）、"
        "JSONL（query_id、chunk_id 或 doc_id、score，可选 rank）或表头含 query_id、"
        "chunk_id 或 doc_id 及 score 的 CSV",
    },
    "run_no_id": {
        "en": "neither {fields} is given: each line names the chunk (or document) it ranks",
        "zh": "{fields} 均未给出：每行须写明所排序的片段（或文档）",
    },
    "run_both_ids": {
        "en": "give one of {fields}, not both (nor neither)",
        "zh": "{fields} 须给出且只给出其中一个",
    },
    "run_id_field_changed": {
        "en": "this line names its id by this field, earlier lines by '{first}': one run "
        "ranks chunks or documents, not both",
        "zh": "此行用此字段给出 id，而前面各行用“{first}”：一个运行文件只能排序片段或文档之一",
    },
    "run_csv_no_column": {
        "en": "the header has no '{column}' column (it has: {found})",
        "zh": "表头中没有“{column}”列（现有列：{found}）",
    },
    "run_rank_partial": {
        "en": "this line gives no rank while others do: give every line a rank, or none "
        "(then the scores order the run)",
        "zh": "此行没有名次而其他行有：请给每行都写名次，或都不写（此时按分数排序）",
    },
    # -- a retriever scored directly (pooling.run.Run.from_retriever)
    "retriever_bad_result": {
        "en": "the retriever's result {position} for query '{query}' is {found}: expected a "
        "chunk id (a string) or a (chunk id, score) pair",
        "zh": "检索器对查询“{query}”返回的第 {position} 个结果是 {found}：应为片段 id（字符串）"
        "或（片段 id, 分数）对",
    },
    "retriever_bad_score": {
        "en": "the retriever scored chunk '{chunk}' for query '{query}' {value}, not a finite "
        "number",
        "zh": "检索器对查询“{query}”给片段“{chunk}”的分数 {value} 不是有限数值",
    },
    "retriever_bad_id": {
        "en": "the retriever returned the id '{value}' for query '{query}': an id is not "
        "blank and holds no whitespace",
        "zh": "检索器对查询“{query}”返回了 id“{value}”：id 不能为空，也不能含空白",
    },
    "retriever_repeated": {
        "en": "the retriever returned chunk '{chunk}' twice for query '{query}'",
        "zh": "检索器对查询“{query}”两次返回片段“{chunk}”",
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
    "db_missing": {
        "en": "there is no database at {url}: run `qrels init` to make one there, or name "
        "yours with --db or QRELS_DATABASE_URL",
        "zh": "{url} 处没有数据库：可运行 `qrels init` 在此新建，或用 --db 或 "
        "QRELS_DATABASE_URL 指定已有的数据库",
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
    # -- security and integrity
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
    "typed_control_character": {
        "en": "the {what} holds the control character {code}, which is refused (NUL cannot be "
        "stored, the others act unseen on terminals and files)",
        "zh": "{what}含有控制字符 {code}，不予接受（NUL 无法存储，其他控制字符会在终端和文件中"
        "暗中起作用）",
    },
    "format_character": {
        "en": "holds the invisible format character {code} (a bidi control, a zero-width "
        "space or joiner, a soft hyphen), which is refused in ids: it makes two ids look alike "
        "or one read backwards",
        "zh": "含有不可见的格式字符 {code}（双向文本控制符、零宽空格或连接符、软连字符），"
        "id 中不予接受：它会让两个 id 看起来相同，或让一个 id 倒着显示",
    },
    "typed_format_character": {
        "en": "the {what} holds the invisible format character {code} (a bidi control, a "
        "zero-width space or joiner, a soft hyphen), which is refused in names: it makes two "
        "names look alike or one read backwards",
        "zh": "{what}含有不可见的格式字符 {code}（双向文本控制符、零宽空格或连接符、软连字符），"
        "名称中不予接受：它会让两个名称看起来相同，或让一个名称倒着显示",
    },
    "not_regular_file": {
        "en": "not a regular file (a folder, a FIFO, a device or a socket), which is not read",
        "zh": "不是普通文件（文件夹、管道、设备或套接字），不予读取",
    },
    "file_too_large": {
        "en": "the file is {size} MB, more than the {limit} MB read at most (raise {variable} "
        "to read it)",
        "zh": "文件大小为 {size} MB，超过读取上限 {limit} MB（如需读取，请调高 {variable}）",
    },
    "query_too_long": {
        "en": "the query's text is {length} characters long; at most {limit} are accepted",
        "zh": "查询文本长 {length} 个字符，最多接受 {limit} 个",
    },
    "typed_surrogate": {
        "en": "the {what} holds the lone surrogate {code} (half of a character), which no "
        "database can store",
        "zh": "{what}含有孤立代理码位 {code}（半个字符），任何数据库都无法保存",
    },
    "typed_too_long": {
        "en": "the {what} is {length} characters long; at most {limit} are taken",
        "zh": "{what}长 {length} 个字符；最多允许 {limit} 个",
    },
    "metric_cutoff_too_large": {
        "en": "{metric}: the cutoff is larger than {limit}, the largest taken",
        "zh": "{metric}：截断深度大于允许的最大值 {limit}",
    },
    "typed_name_empty": {"en": "the {what} must not be empty", "zh": "{what}不能为空"},
    "what_note": {"en": "note", "zh": "备注"},
    "what_rationale": {"en": "rationale", "zh": "裁决理由"},
    "what_account_name": {"en": "account name", "zh": "账号名"},
    "what_pool_name": {"en": "pool name", "zh": "池名称"},
    "what_corpus_version_name": {"en": "corpus version name", "zh": "语料版本名"},
    "what_query_set_name": {"en": "query set name", "zh": "查询集名"},
    "what_system_name": {"en": "system name", "zh": "系统名"},
    "rank_not_positive": {
        "en": "rank {value} is not a whole number from 1",
        "zh": "名次 {value} 不是从 1 起的整数",
    },
    "rank_too_large": {
        "en": "rank {value} is larger than {limit}, the largest a rank may be",
        "zh": "名次 {value} 大于允许的最大名次 {limit}",
    },
    "json_not_finite": {
        "en": "the number {value} is not finite, which is refused (PostgreSQL's JSON cannot "
        "hold it, SQLite's would)",
        "zh": "数值 {value} 不是有限数，不予接受（PostgreSQL 的 JSON 无法保存它，SQLite 却会保存）",
    },
    "json_too_deep": {
        "en": "objects and arrays are nested more than {limit} deep, which is refused",
        "zh": "对象和数组嵌套超过 {limit} 层，不予接受",
    },
    "lone_surrogate": {
        "en": "holds the lone surrogate {code} (a \\u escape that is half of a character), "
        "which no database can store",
        "zh": "含有孤立代理码位 {code}（只是半个字符的 \\u 转义），任何数据库都无法保存",
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
    # -- accounts
    "user_exists": {"en": "user '{name}' already exists", "zh": "用户“{name}”已存在"},
    "user_unknown": {"en": "user '{name}' does not exist", "zh": "用户“{name}”不存在"},
    "password_for_model": {
        "en": "'{name}' is a model judge's account: it has no password and cannot log in",
        "zh": "“{name}”是模型评审的账号：它没有密码，不能登录",
    },
    "account_cannot_act": {
        "en": "this account is disabled or cannot log in: nothing was saved",
        "zh": "该账户已停用或不能登录：没有保存任何内容",
    },
    "role_needed": {
        "en": "only a {role} may do this; {name} is not one: nothing was saved",
        "zh": "只有{role}可以执行此操作；{name} 不是：没有保存任何内容",
    },
    # -- the app
    # -- charts and quality control
    "role_annotator": {"en": "annotator", "zh": "标注者"},
    "role_lead": {"en": "lead", "zh": "负责人"},
    "language": {"en": "Language", "zh": "语言"},
    "query": {"en": "Query", "zh": "查询"},
    "chunk": {"en": "Passage", "zh": "片段"},
    "note": {"en": "Note (optional; required for unsure)", "zh": "备注（可选；标为不确定时必填）"},
    # -- gold items
    "gold_added": {
        "en": "pool '{pool}': {added} gold items added ({new} of them new candidates); "
        "{already} were gold already",
        "zh": "候选池“{pool}”：新增 {added} 个金标条目（其中 {new} 个是新候选）；"
        "{already} 个已是金标",
    },
    "unsure_needs_note": {
        "en": "Unsure needs a note. Write a note saying why you are unsure, then press "
        "Unsure again (Esc leaves the note field).",
        "zh": "标为不确定需要备注。请在备注中写明不确定的原因，然后再按“不确定”"
        "（按 Esc 离开备注框）。",
    },
    "policy": {"en": "Disagreement policy", "zh": "分歧判定规则"},
    "candidate": {"en": "Candidate", "zh": "候选"},
    "rationale": {"en": "Rationale (required)", "zh": "理由（必填）"},
    # -- grades, judgments, adjudication
    "rationale_missing": {
        "en": "an adjudication needs a short rationale",
        "zh": "裁定需要简短的理由",
    },
    "judgments_at_least_one": {
        "en": "a candidate needs at least 1 judgment, got {count}",
        "zh": "每个候选至少需要 1 份标注，实际为 {count}",
    },
    "not_a_candidate": {
        "en": "({query}, {chunk}) is not a candidate of pool '{pool}'",
        "zh": "（{query}，{chunk}）不是候选池“{pool}”中的候选",
    },
    "what_policy": {"en": "policy", "zh": "分歧判定规则"},
    "what_grouping": {"en": "grouping", "zh": "分组方式"},
    "what_qrels_format": {"en": "qrels format", "zh": "qrels 格式"},
    # -- releases
    # -- evaluation
    "what_metric": {"en": "metric", "zh": "指标"},
    "metric_needs_k": {
        "en": "{metric} needs a cutoff: write {metric}@k (e.g. {metric}@10)",
        "zh": "{metric} 需要截断位置：请写成 {metric}@k（例如 {metric}@10）",
    },
    "metric_takes_no_k": {
        "en": "{metric} takes no cutoff: trec_eval computes it over the whole ranking; write "
        "{metric}",
        "zh": "{metric} 不接受截断位置：trec_eval 在整个排序上计算它；请写成 {metric}",
    },
    "metrics_none": {"en": "no metric given", "zh": "没有给出任何指标"},
    "release_not_intact": {
        "en": "release {folder} does not match its manifest: {problems}",
        "zh": "发布 {folder} 与其清单不符：{problems}",
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
    "verify_not_a_version": {
        "en": "the manifest's release name {version}… is not a release version, so it is "
        "not a release this database recorded",
        "zh": "清单中的发布名称 {version}… 不是有效的发布版本，因此不是本数据库记录过的发布",
    },
    "release_not_recorded": {
        "en": "release {folder} is not the release this database recorded, so it is not "
        "used: {problems}",
        "zh": "发布 {folder} 与本数据库记录的发布不符，因此不予使用：{problems}",
    },
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
    # -- metric estimates from a model judge and a human sample
    "estimate_lengths": {
        "en": "per-query values differ in length ({lengths})",
        "zh": "逐查询数值的长度不一致（{lengths}）",
    },
    "estimate_probability": {
        "en": "an inclusion probability must be in (0, 1], found {value}",
        "zh": "入样概率必须在 (0, 1] 之内，实际为 {value}",
    },
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
    "sample_query_unknown": {
        "en": "query '{query}' is not in the pool's query set",
        "zh": "查询“{query}”不在该池的查询集中",
    },
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
    "min_overlap_range": {
        "en": "--min-overlap is a share of characters above 0 and at most 1, got {value}",
        "zh": "--min-overlap 应为大于 0 且不超过 1 的字符比例，实际为 {value}",
    },
    "chunker_params": {
        "en": "need size >= 1 and 0 <= overlap < size, got size={size} overlap={overlap}",
        "zh": "需要 size >= 1 且 0 <= overlap < size，实际 size={size} overlap={overlap}",
    },
    "needs_install": {
        "en": "{what} is not installed: pip install {package}",
        "zh": "未安装 {what}：pip install {package}",
    },
    "embeddings_needs_url": {
        "en": "--encoder openai:MODEL needs --embeddings-url (the server's base URL, up to /v1)",
        "zh": "--encoder openai:MODEL 需要 --embeddings-url（服务器的基础 URL，到 /v1 为止）",
    },
    "embeddings_batch": {
        "en": "texts per request must be 1 or more, not {value}",
        "zh": "每次请求的文本数须至少为 1，而不是 {value}",
    },
    "embeddings_bad_answer": {
        "en": "the embeddings server's answer for model '{model}' is not what was asked: {what}",
        "zh": "嵌入服务器对模型“{model}”的回答不符合请求：{what}",
    },
    "embeddings_failed": {
        "en": "no embeddings from {url} for model '{model}': {detail}",
        "zh": "未能从 {url} 取得模型“{model}”的嵌入：{detail}",
    },
    "embeddings_dimensions": {
        "en": "the query model '{model}' gives vectors of {found} numbers, the passages' have "
        "{expected}",
        "zh": "查询模型“{model}”的向量长度为 {found}，而段落向量长度为 {expected}",
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
    # -- a request to a model's server (pooling.http_client)
    "api_base_url": {
        "en": "'{url}' is not a base URL to use: http(s)://host[:port]/path, without a user, "
        "password, query or fragment (a key goes in an environment variable: --api-key-env)",
        "zh": "“{url}”不能用作基础 URL：应为 http(s)://主机[:端口]/路径，不含用户名、密码、查询参数或片段"
        "（密钥请放在环境变量中：--api-key-env）",
    },
    "api_key_variable_name": {
        "en": "'{variable}' is not the name of an API-key variable: it must end in _API_KEY "
        "(upper case, digits and _), e.g. OPENAI_API_KEY",
        "zh": "“{variable}”不是 API 密钥变量名：必须以 _API_KEY 结尾（大写字母、数字和 _），"
        "例如 OPENAI_API_KEY",
    },
    "api_key_variable_unset": {
        "en": "environment variable {variable} is not set in the process that sends the "
        "requests (the app's, or the command's)",
        "zh": "发送请求的进程（应用或命令）的环境中未设置环境变量 {variable}",
    },
    "http_redirect": {
        "en": "the server answered HTTP {status}, a redirect to {target}: not followed (the "
        "request and its key go only to the address given)",
        "zh": "服务器返回 HTTP {status}，重定向到 {target}：不予跟随（请求及其密钥只发往所给地址）",
    },
    "http_too_large": {
        "en": "the answer is larger than {largest} bytes: refused unread",
        "zh": "回答超过 {largest} 字节：拒收，未读取",
    },
    "http_timeout": {
        "en": "no whole answer in time (each read {timeout} s, the request {deadline} s)",
        "zh": "未在时限内收到完整回答（每次读取 {timeout} 秒，整个请求 {deadline} 秒）",
    },
    "http_connection": {
        "en": "could not reach the server: {detail}",
        "zh": "无法连接服务器：{detail}",
    },
    "http_status": {
        "en": "HTTP {status}: {detail}",
        "zh": "HTTP {status}：{detail}",
    },
    "http_compressed": {
        "en": "the answer is compressed ({encoding}) though an uncompressed one was asked for",
        "zh": "回答经过压缩（{encoding}），而请求的是未压缩的回答",
    },
    # -- kinds, as named in messages
    "kind_corpus_version": {"en": "corpus version", "zh": "语料版本"},
    "kind_query_set": {"en": "query set", "zh": "查询集"},
    "kind_run": {"en": "run of system", "zh": "系统运行结果"},
    # -- type names used in wrong_type
    "type_string": {"en": "a string", "zh": "字符串"},
    "type_object": {"en": "an object", "zh": "对象"},
    "type_bool": {"en": "true or false", "zh": "true 或 false"},
    "type_string_list": {"en": "a list of strings", "zh": "字符串列表"},
    "type_integer": {"en": "an integer", "zh": "整数"},
    "type_number": {"en": "a number", "zh": "数值"},
    # -- settings
    "setting_not_megabytes": {
        "en": "{variable} is '{value}': it needs a whole number of megabytes, 1 or more",
        "zh": "{variable} 为“{value}”：需要一个不小于 1 的整数（单位 MB）",
    },
}
_OWN = frozenset(MESSAGES)


def own_keys() -> frozenset[str]:
    """The keys of ``pooling`` and ``storage`` (those written in this module)."""
    return _OWN


def register(messages: dict[str, dict[str, str]]) -> None:
    """Add a layer's ``messages`` (key -> language -> text) to the one table. A key already
    there is a bug (two texts for one key): ``ValueError`` naming it."""
    repeated = sorted(set(messages) & set(MESSAGES))
    if repeated:
        raise ValueError(f"message keys registered twice: {', '.join(repeated)}")
    MESSAGES.update(messages)


def current_language() -> str:
    """The language for messages (``pooling.choices``): the one the command chose
    (``--lang``), else ``QRELS_LANG``, else the locale, else English."""
    return choices.language()


def t(key: str, lang: str | None = None, **params: object) -> str:
    """The message ``key`` in ``lang`` (default: the current language), filled with params;
    a parameter ``"@other_key"`` is replaced by that message first. A path's control or
    bidi characters (a ``Path``, or a ``file``/``folder``/``path`` parameter) are shown
    escaped (``printable``), never sent to a terminal or a page as they are."""
    lang = lang or current_language()
    filled = {k: _filled(k, v, lang) for k, v in params.items()}
    return MESSAGES[key][lang].format(**filled)


def _filled(name: str, value: object, lang: str) -> object:
    if _is_key(value):
        return t(value[1:], lang)
    if isinstance(value, PurePath) or name in PATH_PARAMS:
        return printable(str(value))
    return value


def _is_key(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and value.startswith("@") and value[1:] in MESSAGES


PATH_PARAMS = ("file", "folder", "path")  # parameters that name a file or a folder


def printable(name: str) -> str:
    """A file name (or a text read from a file) as a message shows it: a character that
    is not printable (a control character, a bidi control) written as its escape
    (``\\x1b``, ``\\u202e``), so that it cannot act on the terminal or reorder the line
    it is shown in."""
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in name)


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
