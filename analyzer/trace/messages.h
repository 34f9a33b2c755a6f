/* trace_messages: every sentence the trace layer writes — summary, efficiency, comparison, SVG
 * labels, job titles, errors — as data: analyzer/data/trace_messages.json holds the English and
 * Chinese templates (base/msgcat.h: {name}, {name:%.1f}, {name?one|other}), this list holds their
 * keys and the arguments each takes (type s string, i integer, f real).
 *
 * Numbers, flag names, kernel and op names, HTA's class names and rank labels ("rank 3") stay as
 * they are in every language; markdown layout (headings' #, table pipes and separator rows) is
 * the C code's. JSON keys and values do not depend on the language: where a JSON value is a
 * sentence the markdown also shows (hypotheses, the comparison's significance rule and notes) it
 * is the English template's text.
 *
 * The catalog is an object: loaded once by the caller (tr_msgs_builtin) and passed down in a
 * tr_text with the language to write in; nothing here is global. */
#ifndef PD_TRACE_MESSAGES_H
#define PD_TRACE_MESSAGES_H

#include <stddef.h>

#include "base/alloc.h"
#include "base/msgcat.h"

/* X(enum suffix, key in trace_messages.json, "name:type,...") */
#define TR_MESSAGES(X)                                                                              \
  /* summary.c: source, scope, HTA parity, per step, cross-rank */                                  \
  X(SUM_TITLE, "sum.title", "name:s")                                                               \
  X(SUM_SOURCE, "sum.source", "read:i,path:s,target:s,memory:s")                                    \
  X(SUM_SOURCE_FAILED, "sum.source_failed", "read:i,failed:i,path:s,target:s,memory:s")             \
  X(SUM_TARGET_UNNAMED, "sum.target_unnamed", "")                                                   \
  X(SUM_MEMORY_MEASURED, "sum.memory_measured", "")                                                 \
  X(NOT_MEASURED, "not_measured", "")                                                               \
  X(SUM_FILES_HEAD, "sum.files_head", "")                                                           \
  X(SUM_FROM_FILE_NAME, "sum.rank_from.file_name", "")                                              \
  X(SUM_FROM_DEFAULT, "sum.rank_from.default", "")                                                  \
  X(COULD_NOT_READ, "could_not_read", "error:s")                                                    \
  X(SUM_WINDOW, "sum.window", "steps:s,hta:s")                                                      \
  X(SUM_WHOLE_TRACE, "sum.whole_trace", "")                                                         \
  X(SUM_HTA_STEPS, "sum.hta_steps", "steps:s")                                                      \
  X(SUM_HTA_STEPS_DROPPED, "sum.hta_steps_dropped", "steps:s,dropped:i")                            \
  X(SUM_HTA_WHOLE, "sum.hta_whole", "")                                                             \
  X(SUM_STREAMS, "sum.streams", "ranks:s")                                                          \
  X(SUM_RANK_STREAMS, "sum.rank_streams", "rank:s,streams:s")                                       \
  X(SUM_NO_STREAMS, "sum.no_streams", "")                                                           \
  X(SUM_FILTER, "sum.filter", "rounding:s")                                                         \
  X(SUM_ROUNDING_APPLIED, "sum.rounding_applied", "")                                               \
  X(SUM_ROUNDING_NOT_APPLIED, "sum.rounding_not_applied", "")                                       \
  X(SUM_NEGATIVE, "sum.negative_non_compute", "rank:s,us:f,rows:i,neg_us:f,exact_us:f")             \
  X(SUM_MEASURED, "sum.measured", "")                                                               \
  X(SUM_HTA_TITLE, "sum.hta_title", "")                                                             \
  X(SUM_HTA_HEAD, "sum.hta_head", "")                                                               \
  X(SUM_NO_COMM, "sum.no_comm", "")                                                                 \
  X(SUM_KERNEL_TYPES, "sum.kernel_types", "types:s")                                                \
  X(SUM_NO_KERNELS, "sum.no_kernels", "")                                                           \
  X(SUM_IDLE_HEAD, "sum.idle_head", "")                                                             \
  X(SUM_IDLE_STREAM, "sum.idle_stream", "stream:i,host:f,kernel:f,other:f")                         \
  X(SUM_IDLE_RANK, "sum.idle_rank", "rank:s,streams:s,launches:i,delay:f,over100:i,over50:i")       \
  X(SUM_TOP_KERNEL, "sum.top_kernel", "kernel:s,type:s,us:f,calls:i")                               \
  X(SUM_STEP_TITLE, "sum.step_title", "")                                                           \
  X(SUM_STEP_HEAD, "sum.step_head", "")                                                             \
  X(STEP_ALL, "step_all", "")                                                                       \
  X(SUM_CROSS, "sum.cross", "")                                                                     \
  X(SUM_COLL_MATCHED, "sum.coll_matched", "n:i,basis:s,total:i")                                    \
  X(SUM_COLL_HEAD, "sum.coll_head", "")                                                             \
  X(SUM_COLL_NONE, "sum.coll_none", "total:i,ranks:i")                                              \
  X(SUM_COLL_NONE_P2P, "sum.coll_none_p2p", "total:i,p2p:i,ranks:i")                                \
  X(SUM_BASIS_ID, "sum.basis.id", "")                                                               \
  X(SUM_BASIS_ID_MIXED, "sum.basis.id_mixed", "")                                                   \
  X(SUM_BASIS_SEQ, "sum.basis.seq", "")                                                             \
  X(SUM_BASIS_SEQ_MIXED, "sum.basis.seq_mixed", "")                                                 \
  X(SUM_BASIS_ORDER, "sum.basis.order", "")                                                         \
  X(SUM_DP_TITLE, "sum.dp_title", "")                                                               \
  X(SUM_DP_HEAD, "sum.dp_head", "")                                                                 \
  X(SUM_DP_NO_LAYOUT, "sum.dp_no_layout", "")                                                       \
  X(SUM_DP_MOST, "sum.dp_most_data", "rank:i,ms:f,median:f")                                        \
  X(SUM_DP_NONE, "sum.dp_none", "")                                                                 \
  X(SUM_PP_TITLE, "sum.pp_title", "")                                                               \
  X(SUM_PP_HEAD, "sum.pp_head", "")                                                                 \
  X(SUM_PP_UNKNOWN_M, "sum.pp_unknown_m", "")                                                       \
  X(SUM_PP_NONE, "sum.pp_none", "")                                                                 \
  X(SUM_HYPOTHESES, "sum.hypotheses", "")                                                           \
  X(SUM_ONLY_TRACE, "sum.only_trace", "")                                                           \
  /* hypotheses (summary.c, effsum.c) */                                                            \
  X(HYP_NONE, "hyp.none", "")                                                                       \
  X(HYP_DATA, "hyp.data_supply", "ranks:s,share:s")                                                 \
  X(HYP_LAUNCH, "hyp.launch_bound", "ranks:s,share:s")                                              \
  X(HYP_COMM_WAIT, "hyp.comm_wait", "ranks:s,share:s")                                              \
  X(HYP_COMM_MATCHED, "hyp.comm_exposed.matched", "ranks:s,share:s")                                \
  X(HYP_COMM_P2P, "hyp.comm_exposed.p2p", "ranks:s,share:s")                                        \
  X(HYP_COMM_UNMATCHED, "hyp.comm_exposed.unmatched", "ranks:s,share:s")                            \
  X(HYP_LATE, "hyp.late_rank", "rank:s,last:i,instances:i,wait_ms:f")                               \
  X(HYP_DP_DATA, "hyp.dp_data_supply", "rank:s,excess_ms:f,steps:s,max_ms:f,median_ms:f,step:i")    \
  X(HYP_DP_COMPUTE, "hyp.dp_compute", "rank:s,steps:s,max_ms:f,mean_ms:f,spread:f,step:i")          \
  X(HYP_PP, "hyp.pp_bubble", "stage:i,bubble:f,step:i,ideal:f,p:i,m:i")                             \
  X(HYP_SLOW_KERNELS, "hyp.slow_kernels", "rank:s,mfu:f,busy:f,kpeak:f,cover:f")                    \
  X(HYP_IDLE_FIRST, "hyp.idle_first", "rank:s,mfu:f,busy:f")                                        \
  X(HYP_MEM_LIMIT, "hyp.memory_limit", "rank:s,used:f")                                             \
  X(HYP_MEM_ROOM, "hyp.memory_room", "rank:s,used:f")                                               \
  X(HYP_MEM_FRAG, "hyp.memory_fragmented", "rank:s,frag:f")                                         \
  X(HYP_BW_SMALL, "hyp.bandwidth_small", "what:s,mib:f,group:i,busbw:f,pct:f,link:s,link_gbps:f")   \
  X(HYP_BW_LOW, "hyp.bandwidth_low", "what:s,mib:f,group:i,busbw:f,pct:f,link:s,link_gbps:f")       \
  /* effsum.c: memory and efficiency */                                                             \
  X(EFF_MEMORY, "eff.memory", "")                                                                   \
  X(EFF_MEM_NONE, "eff.memory_none", "")                                                            \
  X(EFF_MEM_INTRO, "eff.memory_intro", "")                                                          \
  X(EFF_MEM_HEAD, "eff.memory_head", "")                                                            \
  X(NOT_STATED, "not_stated", "")                                                                   \
  X(EFF_SEE_DEVICE, "eff.see_device", "")                                                           \
  X(EFF_HEADROOM_UNKNOWN, "eff.headroom_unknown", "")                                               \
  X(EFF_OUTSIDE_STEPS, "eff.outside_steps", "")                                                     \
  X(EFF_NO_MARKERS, "eff.no_markers", "")                                                           \
  X(EFF_AT_STEP, "eff.at_step", "step:i")                                                           \
  X(EFF_AT_OP_NO_SPAN, "eff.at_op.no_span", "")                                                     \
  X(EFF_AT_OP_NOT_KEPT, "eff.at_op.not_kept", "")                                                   \
  X(EFF_AT_OP_HEADER, "eff.at_op.header", "")                                                       \
  X(EFF_MEM_STEPS, "eff.memory_steps", "rank:s,steps:s")                                            \
  X(EFF_MEM_STEPS_BOUNDS, "eff.memory_steps_bounds", "rank:s,steps:s")                              \
  X(EFF_NO_EVENTS, "eff.no_events", "")                                                             \
  X(EFF_TITLE, "eff.title", "")                                                                     \
  X(EFF_DEVICE, "eff.device", "name:s")                                                             \
  X(EFF_DEVICE_UNKNOWN, "eff.device_unknown", "")                                                   \
  X(EFF_DEVICE_NOT_IN_TABLE, "eff.device_not_in_table", "")                                         \
  X(EFF_DEVICE_AS, "eff.device_as", "device:s")                                                     \
  X(EFF_DEVICE_PEAKS, "eff.device_peaks", "device:s,bf16:s,fp8:s,fp32:s,link:s,speed:s,source:s")   \
  X(EFF_LINK, "eff.link", "")                                                                       \
  X(EFF_FLOPS_NO_SHAPES, "eff.flops_no_shapes", "")                                                 \
  X(EFF_FLOPS_NO_OPS, "eff.flops_no_ops", "")                                                       \
  X(EFF_FLOPS_INTRO, "eff.flops_intro", "")                                                         \
  X(EFF_FLOPS_HEAD, "eff.flops_head", "")                                                           \
  X(EFF_MFU_NO_PEAK, "eff.mfu_no_peak", "")                                                         \
  X(EFF_MFU_NO_DEVICE, "eff.mfu_no_device", "")                                                     \
  X(EFF_NO_KERNELS_ATTRIBUTED, "eff.no_kernels_attributed", "")                                     \
  X(EFF_NO_COMPUTE, "eff.no_compute", "")                                                           \
  X(EFF_PROFILER_COUNT, "eff.profiler_count", "")                                                   \
  X(EFF_OPS_TITLE, "eff.ops_title", "rank:s,shown:i,total:i")                                       \
  X(EFF_OPS_HEAD, "eff.ops_head", "")                                                               \
  X(EFF_NO_KERNELS, "eff.no_kernels", "")                                                           \
  X(EFF_BW_NONE, "eff.bw_none", "why:s")                                                            \
  X(EFF_BW_NO_SIZES, "eff.bw_no_sizes", "")                                                         \
  X(EFF_BW_NO_COLLECTIVES, "eff.bw_no_collectives", "")                                             \
  X(EFF_BW_AND_P2P, "eff.bw_and_p2p", "why:s")                                                      \
  X(EFF_BW_TITLE, "eff.bw_title", "time:s")                                                         \
  X(EFF_BW_MATCHED, "eff.bw_matched", "")                                                           \
  X(EFF_BW_OWN, "eff.bw_own", "")                                                                   \
  X(EFF_BW_HEAD, "eff.bw_head", "")                                                                 \
  X(EFF_BW_NO_LINK, "eff.bw_no_link", "")                                                           \
  X(EFF_BW_SPANS_NODES, "eff.bw_spans_nodes", "")                                                   \
  X(EFF_BW_OF_LINK, "eff.bw_of_link", "pct:f,link:f")                                               \
  X(EFF_BW_OF_LINK_ONE_NODE, "eff.bw_of_link_one_node", "pct:f,link:f")                             \
  /* ktab.c */                                                                                      \
  X(KT_TITLE, "ktab.title", "ranks:i,n:i")                                                          \
  X(KT_TITLE_ONE, "ktab.title_one", "n:i")                                                          \
  X(KT_HEAD, "ktab.head", "")                                                                       \
  X(KT_NONE, "ktab.none", "")                                                                       \
  X(KT_MORE, "ktab.more", "n:i,pct:f")                                                              \
  /* compare.c */                                                                                   \
  X(CMP_TITLE, "cmp.title", "")                                                                     \
  X(CMP_RULE, "cmp.rule", "")                                                                       \
  X(CMP_NOISE_UNMEASURED, "cmp.noise_unmeasured", "before:i,after:i")                               \
  X(CMP_NOISE_UNMEASURED_SAME, "cmp.noise_unmeasured_same", "steps:i")                              \
  X(CMP_HEAD_MEASURED, "cmp.head_measured", "rule:s,noise:f")                                       \
  X(CMP_HEAD_UNMEASURED, "cmp.head_unmeasured", "reason:s")                                         \
  X(CMP_BEFORE, "cmp.before", "")                                                                   \
  X(CMP_AFTER, "cmp.after", "")                                                                     \
  X(CMP_SIDE, "cmp.side", "side:s,path:s,steps:i,ranks:i")                                          \
  X(CMP_SIDE_WHOLE, "cmp.side_whole", "side:s,path:s,ranks:i")                                      \
  X(CMP_FIG_HEAD, "cmp.figures_head", "")                                                           \
  X(CMP_FIG_STEP, "cmp.figure.step", "")                                                            \
  X(CMP_FIG_COMPUTE, "cmp.figure.compute", "")                                                      \
  X(CMP_FIG_COMM, "cmp.figure.exposed_comm", "")                                                    \
  X(CMP_FIG_COPIES, "cmp.figure.exposed_copies", "")                                                \
  X(CMP_FIG_DATA, "cmp.figure.idle_data_supply", "")                                                \
  X(CMP_FIG_COLL_WAIT, "cmp.figure.idle_collective_wait", "")                                       \
  X(CMP_FIG_LAUNCH, "cmp.figure.idle_launch_bound", "")                                             \
  X(CMP_FIG_MFU, "cmp.figure.mfu", "")                                                              \
  X(CMP_MEM_RESERVED, "cmp.memory_reserved", "")                                                    \
  X(CMP_MEM_ALLOCATED, "cmp.memory_allocated", "")                                                  \
  X(CMP_CHANGE_PTS, "cmp.change_points", "change:f")                                                \
  X(CMP_EXACT, "cmp.exact", "")                                                                     \
  X(CMP_YES, "cmp.yes", "")                                                                         \
  X(CMP_WITHIN_NOISE, "cmp.within_noise", "")                                                       \
  X(CMP_NO, "cmp.no", "")                                                                           \
  X(CMP_OPS_TITLE, "cmp.ops_title", "")                                                             \
  X(CMP_KERNELS_TITLE, "cmp.kernels_title", "")                                                     \
  X(CMP_COLLS_TITLE, "cmp.collectives_title", "")                                                   \
  X(CMP_NO_CHANGE, "cmp.no_change", "")                                                             \
  X(CMP_ROWS_HEAD, "cmp.rows_head", "")                                                             \
  X(CMP_MORE, "cmp.more", "n:i,pct:f")                                                              \
  /* svg.c */                                                                                       \
  X(SVG_KIND_COMPUTE, "svg.kind.compute", "")                                                       \
  X(SVG_KIND_COMM, "svg.kind.exposed_comm", "")                                                     \
  X(SVG_KIND_COPIES, "svg.kind.exposed_copies", "")                                                 \
  X(SVG_KIND_OTHER, "svg.kind.other_gpu", "")                                                       \
  X(SVG_KIND_DATA, "svg.kind.idle_data_supply", "")                                                 \
  X(SVG_KIND_COLL_WAIT, "svg.kind.idle_collective_wait", "")                                        \
  X(SVG_KIND_LAUNCH, "svg.kind.idle_launch_bound", "")                                              \
  X(SVG_RANK_KERNELS, "svg.rank_kernels", "rank:i,kernels:s")                                       \
  X(SVG_BARS_TITLE, "svg.bars_title", "")                                                           \
  X(SVG_NO_STEPS, "svg.no_steps", "")                                                               \
  X(SVG_SEGMENT, "svg.segment", "rank:i,step:i,kind:s,ms:f")                                        \
  X(SVG_AXIS_TIME, "svg.axis_time", "")                                                             \
  X(SVG_MEM_TITLE, "svg.memory_title", "")                                                          \
  X(SVG_MEM_NONE, "svg.memory_none", "")                                                            \
  X(SVG_AXIS_STEP, "svg.axis_step", "")                                                             \
  X(SVG_HEAT_TITLE, "svg.heat_title", "")                                                           \
  X(SVG_HEAT_STEP, "svg.heat_step", "step:i")                                                       \
  X(SVG_HEAT_CELL, "svg.heat_cell", "rank:i,step:i,ms:f")                                           \
  X(SVG_AXIS_RANKS, "svg.axis_ranks", "")                                                           \
  X(SVG_FIRST_RANKS, "svg.first_ranks", "n:i,total:i")                                              \
  X(SVG_LINK, "svg.link", "path:s")                                                                 \
  /* trace.c: jobs and errors */                                                                    \
  X(JOB_TITLE, "job.title", "job:i,jobs:i,world:i,ranks:s,files:i")                                  \
  X(JOB_TITLE_NO_WORLD, "job.title_no_world", "job:i,jobs:i,ranks:s,files:i")                                        \
  X(JOB_WARNING, "job.warning", "jobs:i")                                                           \
  X(JOB_WARNING_LINE, "job.warning_line", "warning:s")                                              \
  X(ERR_NO_TRACES, "err.no_traces", "path:s")                                                       \
  X(ERR_FORMAT, "err.format", "format:s")                                                           \
  X(ERR_PARTIAL_FOLDER, "err.partial_folder", "path:s")                                             \
  X(ERR_NOT_JSON, "err.not_json", "path:s,why:s,line:i")                                            \
  X(ERR_MERGE_OPTIONS, "err.merge_options", "part:s,first:s")                                       \
  X(ERR_NO_PARTIALS, "err.no_partials", "")                                                         \
  X(ERR_CANNOT_SUMMARISE, "err.cannot_summarise", "path:s")                                         \
  /* inflate.c, read.c, rank.c: reading a file */                                                    \
  X(ERR_OPEN, "err.open", "path:s,why:s") \
  X(ERR_NO_SUCH, "err.no_such_path", "path:s") \
  X(ERR_READ_IO, "err.read_io", "why:s") \
  X(ERR_ZLIB_START, "err.zlib_start", "path:s") \
  X(ERR_GZ_TRUNCATED, "err.gzip_truncated", "bytes:i") \
  X(ERR_GZ_CORRUPT, "err.gzip_corrupt", "why:s,byte:i") \
  X(ERR_GZ_STUCK, "err.gzip_stuck", "byte:i") \
  X(ERR_AT_BYTE, "err.at_byte", "path:s,what:s,byte:i") \
  X(ERR_AT_BYTE_GZ, "err.at_byte_gz", "path:s,what:s,byte:i") \
  X(ERR_RD_TOO_LARGE, "err.rd.too_large", "mib:i") \
  X(ERR_RD_EOF_STRING, "err.rd.eof_string", "") \
  X(ERR_RD_EOF_NESTED, "err.rd.eof_nested", "") \
  X(ERR_RD_EOF_EVENTS, "err.rd.eof_events", "") \
  X(ERR_RD_EOF_TOP, "err.rd.eof_top", "") \
  X(ERR_RD_DEEP, "err.rd.deep", "levels:i") \
  X(ERR_RD_MISMATCHED, "err.rd.mismatched", "c:s") \
  X(ERR_RD_BAD_VALUE, "err.rd.bad_top_value", "why:s") \
  X(ERR_RD_BAD_EVENT, "err.rd.bad_event", "why:s") \
  X(ERR_RD_NOT_OBJECT, "err.rd.not_object", "n:i") \
  X(ERR_RD_AFTER_EVENT, "err.rd.after_event", "c:s") \
  X(ERR_RD_TOP_KEY, "err.rd.top_key", "") \
  X(ERR_RD_COLON, "err.rd.colon", "key:s") \
  X(ERR_RD_EVENTS_NOT_ARRAY, "err.rd.events_not_array", "") \
  X(ERR_RD_TOP_COMMA, "err.rd.top_comma", "") \
  X(ERR_RD_NO_EVENTS, "err.rd.no_events", "") \
  X(ERR_RD_EMPTY, "err.rd.empty", "") \
  X(ERR_RD_NOT_START, "err.rd.not_start", "") \
  X(ERR_RD_TRAILING, "err.rd.trailing", "") \
  X(ERR_RD_FAILED, "err.rd.failed", "") \
  X(ERR_NOT_PYTORCH, "err.not_pytorch", "path:s,events:i,byte:i") \
  /* cli/trace.c */                                                                                 \
  X(CLI_CANNOT_WRITE_SVG, "cli.cannot_write_svg", "path:s")                                         \
  X(CLI_MERGE_NEEDS_PARTS, "cli.merge_needs_parts", "")                                             \
  X(CLI_MERGE_OPTIONS, "cli.merge_takes_options", "")                                               \
  X(CLI_COMPARE_NEEDS_TWO, "cli.compare_needs_two", "")                                             \
  X(CLI_JOBS, "cli.jobs_range", "")                                                                 \
  X(CLI_UNKNOWN_DEVICE, "cli.unknown_device", "name:s,known:s")                                     \
  X(CLI_UNKNOWN_OPTION, "cli.unknown_option", "option:s")                                           \
  X(CLI_ONE_PATH, "cli.one_path", "")                                                               \
  X(CLI_FORMAT, "cli.format", "")                                                                   \
  X(CLI_LANG, "cli.lang", "lang:s")                                                                 \
  X(CLI_STAND_ALONE, "cli.partial_merge_alone", "")                                                 \
  X(CLI_COMPARE_EXTRA, "cli.compare_extra", "path:s")                                               \
  X(CLI_FAILED, "cli.failed", "")

typedef enum {
#define TR_MSG_ENUM_(id, key, args) TM_##id,
  TR_MESSAGES(TR_MSG_ENUM_)
#undef TR_MSG_ENUM_
  TM_COUNT
} tr_msg_id;

/* The languages, in the order the catalog stores them. */
enum { TR_EN = 0, TR_ZH = 1, TR_NLANGS = 2 };

/* TR_ZH for "zh", TR_EN for anything else (NULL included). */
int tr_lang_of(const char *lang);

typedef struct tr_msgs tr_msgs;

/* Compiles a document {"messages": {key: {"en": .., "zh": ..}}}. Refused, each with a line in
 * *errs ("trace_messages.json: sum.title (zh): ..."): a key the list above lacks, a message the
 * document lacks or that lacks a language, a template that names an unknown argument or uses a
 * conversion that does not fit it. A refused message renders as its key. Never NULL; free with
 * tr_msgs_free; errs (caller frees each and the array) may be NULL to ignore them. */
tr_msgs *tr_msgs_load(const char *text, size_t len, char ***errs, size_t *nerrs);
/* The catalog compiled into the binary: data/trace_messages.json as the build compiled it
 * (tmsgc.c, which refuses a document tr_msgs_load refuses), loaded without parsing JSON; the JSON
 * itself in a build that embeds no data. Never NULL. */
tr_msgs *tr_msgs_builtin(char ***errs, size_t *nerrs);
void tr_msgs_free(tr_msgs *m);

/* The compiled form (appended to out) and a catalog from it (never NULL; a form that does not
 * match the list above, key by key, is refused with a line in *errs). The texts in it are not
 * checked again (the build did) and not copied: p must outlive the catalog (the embedded data
 * does). */
void tr_msgs_to_binary(const tr_msgs *m, pd_buf *out);
tr_msgs *tr_msgs_from_binary(const unsigned char *p, size_t n, char ***errs, size_t *nerrs);
/* The template of message id in lang as the document wrote it (borrowed), or NULL. */
const char *tr_msgs_text(const tr_msgs *m, tr_msg_id id, int lang);

/* A catalog and the language to write in: what every renderer of the trace layer takes. */
typedef struct {
  const tr_msgs *msgs;
  int lang; /* TR_EN or TR_ZH */
} tr_text;

/* Appends message id to b; args in the order the list above names them (TR_SAY counts them). */
void tr_say(pd_buf *b, const tr_text *t, tr_msg_id id, const pd_marg *args, size_t nargs);
/* The same as a fresh string; caller frees. */
char *tr_said(const tr_text *t, tr_msg_id id, const pd_marg *args, size_t nargs);

#define TR_ARGS_(...) (const pd_marg[]){__VA_ARGS__}, sizeof((const pd_marg[]){__VA_ARGS__}) / sizeof(pd_marg)
#define TR_SAY(b, t, id, ...) tr_say(b, t, id, TR_ARGS_(__VA_ARGS__))
#define TR_SAY0(b, t, id) tr_say(b, t, id, NULL, 0)
#define TR_SAID(t, id, ...) tr_said(t, id, TR_ARGS_(__VA_ARGS__))
#define TR_SAID0(t, id) tr_said(t, id, NULL, 0)

/* Message id in language lang (TR_EN, TR_ZH) from a catalog of its own, made and freed in the
 * call: for the error paths of code that runs on several threads (reading a rank's file), where
 * no catalog may be shared. Caller frees. */
char *tr_said_in(int lang, tr_msg_id id, const pd_marg *args, size_t nargs);
#define TR_SAID_IN(lang, id, ...) tr_said_in(lang, id, TR_ARGS_(__VA_ARGS__))
#define TR_SAID_IN0(lang, id) tr_said_in(lang, id, NULL, 0)

/* t itself when it has a catalog; otherwise *own, filled with the built-in catalog in t's
 * language (English when t is NULL); release *own with tr_text_release. For entry points whose
 * caller passed no catalog (tests, fuzzers): loading costs a few hundred microseconds. */
const tr_text *tr_text_or_builtin(const tr_text *t, tr_text *own);
void tr_text_release(tr_text *own);

#endif
