/* gpuplan/defaults.h - the defaults registry: every default that more than
 * one model reads, once, with its unit and source.
 *
 * One X-macro table feeds the enum of keys, the registry rows and the
 * lookups.  The training model, the inference model, the simulator and
 * the plan read their shared defaults from a 'struct gp_defaults' (a
 * copy of the registry's values that specs and flags override by key);
 * `gpuplan assumptions` lists the table, and docs/model/defaults.md
 * documents every row (a test keeps the two in step).
 *
 * XX(ID, "key", value, text, "unit", "users", "source")
 *   value: the default in 'unit' (0 for a categorical row);
 *   text:  NULL for a number, else the categorical default (e.g. the KV
 *          cache dtype "auto"); such a row is set with
 *          gp_defaults_set_text();
 *   users: comma-separated models that read the key (train, infer, sim,
 *          plan); the source names the paper, datasheet or planning
 *          rationale.
 *
 * Keys are "<group>.<name>".  The plan's 'assumptions:' mapping names a
 * row by its full key or by <name> alone (the plan's historical keys:
 * "restart_s" is reliability.restart_s); every row whose users include
 * "plan" is a plan assumption.
 */
#ifndef GPUPLAN_DEFAULTS_H
#define GPUPLAN_DEFAULTS_H

#include <stddef.h>

#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_DEFAULTS_MAP(XX)                                                   \
    XX(TRAIN_BATCH_TOKENS,                                                   \
       "train.batch_tokens", 4194304.0, NULL, "tokens",                       \
       "train,plan",                                                          \
       "default global batch when none is given: 4M tokens, the batch of"     \
       " Llama 3 405B's first training stage (Llama 3 paper, sec. 3.4.1)"     \
       " and of Llama 2 (Touvron et al. 2023, sec. 2.2)")                     \
    XX(PLAN_RESERVED_1Y_DISCOUNT,                                            \
       "plan.reserved_1y_discount", 0.30, NULL, "share off on-demand",        \
       "plan",                                                                \
       "planning assumption; the catalog has no reserved rates (AWS "         \
       "Savings Plans advertise up to 72% off for 3-year terms)")             \
    XX(PLAN_RESERVED_3Y_DISCOUNT,                                            \
       "plan.reserved_3y_discount", 0.50, NULL, "share off on-demand",        \
       "plan",                                                                \
       "planning assumption; the catalog has no reserved rates (AWS "         \
       "Savings Plans advertise up to 72% off for 3-year terms)")             \
    XX(PLAN_SPOT_INTERRUPTIONS_PER_NODE_MONTH,                               \
       "plan.spot_interruptions_per_node_month", 0.20, NULL, "1/month",       \
       "plan",                                                                \
       "AWS Spot Instance Advisor's highest frequency bucket (>20% per "      \
       "month), taken for GPU instances")                                     \
    XX(PLAN_SPOT_MAX_SHARE,                                                  \
       "plan.spot_max_share", 0.50, NULL, "share of demand",                  \
       "plan",                                                                \
       "planning assumption: share of the demand (experiments, "              \
       "fine-tunes) that tolerates preemption")                               \
    XX(RELIABILITY_CHECKPOINT_INTERVAL_S,                                    \
       "reliability.checkpoint_interval_s", 3600, NULL, "s",                  \
       "plan,sim",                                                            \
       "checkpoint interval of a job whose own is unknown: hourly, the "      \
       "planning assumption the plan and the simulator share (the "           \
       "training model computes the Young/Daly optimum instead, Daly "        \
       "2006)")                                                               \
    XX(RELIABILITY_RESTART_S,                                                \
       "reliability.restart_s", 600, NULL, "s",                               \
       "train,plan,sim",                                                      \
       "detect, reschedule and reload after an interruption: 10 minutes,"     \
       " the recovery stall of fully synchronous training on O(100K) "        \
       "GPUs (Salpekar et al. 2026, Training LLMs with Fault Tolerant "       \
       "HSDP on 100,000 GPUs, arXiv:2602.00277, sec. 1)")                     \
    XX(PLAN_CHECKPOINT_WRITE_S,                                              \
       "plan.checkpoint_write_s", 120, NULL, "s",                             \
       "plan",                                                                \
       "planning assumption: time budget to write one checkpoint (sets "      \
       "the burst write bandwidth)")                                          \
    XX(PLAN_COMM_SLOWDOWN_MAX,                                               \
       "plan.comm_slowdown_max", 0.05, NULL, "share of step time",            \
       "plan",                                                                \
       "planning threshold: the scale-out bandwidth a training layout "       \
       "needs carries its scale-out bytes per step within its step time "     \
       "on an unlimited fabric plus this share "                              \
       "(docs/model/infrastructure.md)")                                      \
    XX(RELIABILITY_NODE_REPAIR_H,                                            \
       "reliability.node_repair_h", 48, NULL, "h",                            \
       "plan,sim",                                                            \
       "planning assumption: a failed node is out of service for two "        \
       "days (diagnosis, next-business-day parts, burn-in): most "            \
       "unexpected interruptions are hardware faults that need a part "       \
       "(78% in Llama 3's 54-day run, Llama 3 paper sec. 3.3.4)")             \
    XX(PLAN_CHECKPOINTS_KEPT,                                                \
       "plan.checkpoints_kept", 5, NULL, "count",                             \
       "plan",                                                                \
       "planning assumption: checkpoints kept on the fast tier per run")      \
    XX(PLAN_BYTES_PER_TOKEN,                                                 \
       "plan.bytes_per_token", 4, NULL, "B",                                  \
       "plan",                                                                \
       "tokenized corpora stored as 32-bit token ids")                        \
    XX(PLAN_STORAGE_HEADROOM,                                                \
       "plan.storage_headroom", 0.20, NULL, "free share",                     \
       "plan",                                                                \
       "planning assumption: free space kept on the fast tier")               \
    XX(PLAN_OBJECT_COPIES,                                                   \
       "plan.object_copies", 1, NULL, "copies",                               \
       "plan",                                                                \
       "planning assumption: one object-store copy of data and "              \
       "checkpoints")                                                         \
    XX(PLAN_DEPRECIATION_YEARS,                                              \
       "plan.depreciation_years", 4, NULL, "years",                           \
       "plan",                                                                \
       "planning assumption (straight line; hyperscalers depreciate "         \
       "servers over 5-6 years, accelerators age faster)")                    \
    XX(PLAN_SUPPORT_SHARE_YEAR,                                              \
       "plan.support_share_year", 0.10, NULL, "of hardware capex per year",   \
       "plan",                                                                \
       "planning assumption: vendor support and spares")                      \
    XX(PLAN_STAFF_SHARE_YEAR,                                                \
       "plan.staff_share_year", 0.05, NULL, "of hardware capex per year",     \
       "plan",                                                                \
       "planning assumption: operations staff as a share of capex")           \
    XX(PLAN_SPACE_USD_PER_KW_MONTH,                                          \
       "plan.space_usd_per_kw_month", 150, NULL, "USD/kW-month",              \
       "plan",                                                                \
       "planning assumption: colocation space and cooling per kW of IT")      \
    XX(PLAN_SWITCH_USD,                                                      \
       "plan.switch_usd", 25000, NULL, "USD",                                 \
       "plan",                                                                \
       "planning estimate of a 64-port 400G switch; no list price in the"     \
       " catalog")                                                            \
    XX(PLAN_NIC_USD,                                                         \
       "plan.nic_usd", 1500, NULL, "USD",                                     \
       "plan",                                                                \
       "planning estimate of a 400G NIC; no list price in the catalog")       \
    XX(PLAN_TRANSCEIVER_USD,                                                 \
       "plan.transceiver_usd", 800, NULL, "USD",                              \
       "plan",                                                                \
       "planning estimate of a 400G optical transceiver")                     \
    XX(PLAN_CABLE_USD,                                                       \
       "plan.cable_usd", 150, NULL, "USD",                                    \
       "plan",                                                                \
       "planning estimate of a fibre cable")                                  \
    XX(PLAN_STORAGE_USD_PER_TB,                                              \
       "plan.storage_usd_per_tb", 300, NULL, "USD/TB",                        \
       "plan",                                                                \
       "planning estimate of all-flash parallel file system capacity")        \
    XX(PLAN_OBJECT_USD_PER_TB,                                               \
       "plan.object_usd_per_tb", 30, NULL, "USD/TB",                          \
       "plan",                                                                \
       "planning estimate of on-prem object store capacity")                  \
    XX(PLAN_STORAGE_TPUT_MBS_PER_TIB,                                        \
       "plan.storage_tput_mbs_per_tib", 125, NULL, "MB/s per TiB",            \
       "plan",                                                                \
       "on-prem fast tier taken at the FSx for Lustre 125 MB/s/TiB "          \
       "tier's throughput density (catalog row fsx-lustre-p2-ssd-125)")       \
    XX(PLAN_OTHER_IT_SHARE,                                                  \
       "plan.other_it_share", 0.10, NULL, "of compute IT power",              \
       "plan",                                                                \
       "planning assumption: network, storage, CPU and management nodes")     \
    XX(PLAN_LOAD_FACTOR,                                                     \
       "plan.load_factor", 0.83, NULL, "average / maximum power",             \
       "plan",                                                                \
       "DERIVED from the catalog: DGX H100 typical 8.5 kW of 10.2 kW "        \
       "maximum")                                                             \
    XX(PLAN_UTILIZATION,                                                     \
       "plan.utilization", 0.70, NULL, "share of provisioned GPU-hours used", \
       "plan",                                                                \
       "planning assumption for fixed-size fleets until the simulator "       \
       "gives it")                                                            \
    XX(PLAN_HEAD_NODES,                                                      \
       "plan.head_nodes", 2, NULL, "count",                                   \
       "plan",                                                                \
       "planning assumption: two login/head nodes for failover")              \
    XX(PLAN_MGMT_NODES,                                                      \
       "plan.mgmt_nodes", 3, NULL, "count",                                   \
       "plan",                                                                \
       "Kubernetes docs: three control-plane nodes for an etcd quorum")       \
    XX(PLAN_QUEUE_P95_WAIT_LIMIT_H,                                          \
       "plan.queue_p95_wait_limit_h", 24, NULL, "h",                          \
       "plan",                                                                \
       "planning limit: a team whose simulated p95 queueing wait exceeds"     \
       " a working day is flagged in the decision log "                       \
       "(docs/model/infrastructure.md, Multi-tenancy)")                       \
    XX(PLAN_QUEUE_MAX_WAIT_LIMIT_H,                                          \
       "plan.queue_max_wait_limit_h", 168, NULL, "h",                         \
       "plan",                                                                \
       "planning limit: a team whose longest simulated wait exceeds one "     \
       "week is flagged in the decision log "                                 \
       "(docs/model/infrastructure.md, Multi-tenancy)")                       \
    XX(PLAN_CPU_NODE_PREPROCESS_BW,                                          \
       "plan.cpu_node_preprocess_bw", 2e9, NULL, "B/s",                       \
       "plan",                                                                \
       "planning assumption: data a CPU node tokenizes/decodes per "          \
       "second")                                                              \
    XX(PLAN_INFERENCE_HEADROOM,                                              \
       "plan.inference_headroom", 0.20, NULL, "share of replica capacity",    \
       "plan",                                                                \
       "planning assumption: serving replicas run at most 80% of the "        \
       "rate that meets the SLOs")                                            \
    XX(PLAN_SENSITIVITY_MFU,                                                 \
       "plan.sensitivity_mfu", 0.20, NULL, "+-share",                         \
       "plan",                                                                \
       "sensitivity range for the training planner's GEMM efficiency")        \
    XX(PLAN_SENSITIVITY_PRICE,                                               \
       "plan.sensitivity_price", 0.20, NULL, "+-share",                       \
       "plan",                                                                \
       "sensitivity range for prices and capex")                              \
    XX(PLAN_SENSITIVITY_DEMAND,                                              \
       "plan.sensitivity_demand", 0.30, NULL, "+-share",                      \
       "plan",                                                                \
       "sensitivity range for demand (fleet size)")                           \
    XX(PLAN_SENSITIVITY_FAILURE,                                             \
       "plan.sensitivity_failure", 2.0, NULL, "x",                            \
       "plan",                                                                \
       "sensitivity factor on the interruption rate")                         \
    XX(RELIABILITY_FAIL_PER_GPU_HOUR,                                        \
       "reliability.fail_per_gpu_hour",                                     \
       (419.0 / (54.0 * 24.0 * 16384.0)), NULL, "1/GPU-h",                    \
       "train,plan",                                                          \
       "unexpected interruptions per GPU-hour: 419 in 54 days on 16,384 "     \
       "H100 GPUs (Llama 3 paper, Dubey et al. 2024, sec. 3.3.4)")            \
    XX(TRAIN_CKPT_WRITE_BW_PER_NODE,                                         \
       "train.ckpt_write_bw_per_node", 2e9, NULL, "B/s per node",             \
       "train,plan",                                                          \
       "checkpoint write bandwidth per node: Llama 3's Tectonic storage "     \
       "sustains 2 TB/s and peaks at 7 TB/s for 2,048 nodes, 1 to 3.4 "       \
       "GB/s per node (Llama 3 paper, sec. 3.3.1)")                           \
    XX(TRAIN_CKPT_OVERHEAD_TARGET,                                           \
       "train.ckpt_overhead_target", 0.05, NULL, "share of wall time",        \
       "train",                                                               \
       "planning target: checkpoint storage is sized so that writing "        \
       "checkpoints at the Young/Daly interval costs at most 5% of wall "     \
       "time (docs/model/training.md, Reliability)")                          \
    XX(INFER_KV_DTYPE,                                                       \
       "infer.kv_dtype", 0, "auto", "dtype",                                  \
       "infer",                                                               \
       "auto: an FP8 KV cache when the weights are FP8 or FP4 and the "       \
       "accelerator has FP8 tensor cores, else BF16; quantised "              \
       "checkpoints ship FP8 KV-cache scales (vLLM docs, Quantized KV "       \
       "Cache; TensorRT-LLM FP8 KV cache); a dtype name (bf16, fp8, ...)"     \
       " forces one")                                                         \
    XX(TRAIN_BATCH_MAX_REF_TOKENS,                                           \
       "train.batch_max_ref_tokens", 16777216.0, NULL, "tokens",              \
       "train,plan",                                                          \
       "largest global batch the planner chooses for a model of"              \
       " train.batch_max_ref_params: 16M tokens, Llama 3 405B's final"        \
       " batch (Llama 3 paper, sec. 3.4.1); docs/model/training.md, Batch")   \
    XX(TRAIN_BATCH_MAX_REF_PARAMS,                                           \
       "train.batch_max_ref_params", 405e9, NULL, "parameters",               \
       "train,plan",                                                          \
       "model size of the reference batch: Llama 3 405B (Llama 3 paper)")     \
    XX(TRAIN_BATCH_MAX_EXPONENT,                                             \
       "train.batch_max_exponent", 1.0 / 3.0, NULL, "power of params",       \
       "train,plan",                                                          \
       "growth of the largest batch with model size, (N/Nref)^e: 1/3 puts"    \
       " GPT-3's batches (0.5M at 125M to 3.2M at 175B, Brown et al. 2020,"   \
       " Table 2.1), Llama 2's 4M (7B-70B) and Llama 3 405B's 4M-16M inside"  \
       " the range; the critical batch grows as the loss falls (McCandlish"   \
       " et al. 2018; Kaplan et al. 2020, sec. 5.1)")                         \
    XX(TRAIN_BATCH_RANGE,                                                    \
       "train.batch_range", 4.0, NULL, "largest / smallest",                  \
       "train,plan",                                                          \
       "the chosen batch lies within a factor 4 below the largest: Llama 3"   \
       " 405B ramped 4M -> 8M -> 16M tokens (Llama 3 paper, sec. 3.4.1)")     \
    XX(TRAIN_BATCH_WARN_MFU_LOSS,                                            \
       "train.batch_warn_mfu_loss", 0.10, NULL, "share of MFU",               \
       "train",                                                               \
       "planning threshold: a batch the user fixes is flagged when the"       \
       " batch the planner would choose reaches an MFU over 10% higher")      \
    XX(TRAIN_DEFAULT_DAYS,                                                   \
       "train.default_days", 56, NULL, "days",                                \
       "train",                                                               \
       "deadline of a training job given tokens but neither a GPU count nor"  \
       " days (`train`, campaign validation rows): 56 days, the median of"   \
       " 7 published pre-training durations (MPT-7B 9.5, LLaMA-65B 21,"       \
       " DeepSeek-V3 54.2, OPT-175B 56, Falcon-180B 71.2, Llama 3.1 405B"      \
       " 78.4, BLOOM-176B 117; docs/model/defaults.md, Default deadline)")    \
    XX(PLAN_HEAD_NODES_SMALL,                                                \
       "plan.head_nodes_small", 1, NULL, "count",                             \
       "plan",                                                                \
       "planning assumption: a small on-prem cluster (2+ nodes, 9-32 "        \
       "GPUs) has one login/head node; a single node is its own login "       \
       "node (docs/model/infrastructure.md, scale tiers)")                    \
    XX(PLAN_MGMT_NODES_SMALL,                                                \
       "plan.mgmt_nodes_small", 1, NULL, "count",                             \
       "plan",                                                                \
       "K3s docs (single-server setup with an embedded datastore): one "      \
       "control-plane node for a small on-prem cluster (9-32 GPUs); a "       \
       "single node runs Docker Compose with none")                           \
    XX(PLAN_DISCOUNT_RATE,                                                   \
       "plan.discount_rate", 0, NULL, "share per year",                       \
       "plan",                                                                \
       "0: costs are undiscounted cash totals that reconcile with the "       \
       "quoted prices; a finance team sets its cost of capital (WACC; US "    \
       "OMB Circular A-94 publishes the federal real rate) to compare "       \
       "present values: on-prem capex, residual value and opex and cloud "    \
       "spend are discounted alike (docs/model/cost.md)")                     \
    XX(PLAN_DATA_READ_BW_PER_NODE,                                           \
       "plan.data_read_bw_per_node", 0, NULL, "B/s per node",                 \
       "plan",                                                                \
       "0: a training job reads its tokens x bytes_per_token over its run "   \
       "time; a value is the least read rate per node of a training job "     \
       "that storage must serve (e.g. multimodal data loaders; "              \
       "docs/model/cost.md, Checkpoint and data bandwidth)")                  \
    XX(PLAN_DELIVERY_LEAD_TIME_MONTHS,                                       \
       "plan.delivery_lead_time_months", 0, NULL, "months",                   \
       "plan",                                                                \
       "0: bought GPUs serve from the horizon's start (the plan's former "    \
       "rule); a value delays them, the demand beyond owned GPUs being "      \
       "rented on demand until they arrive.  Server lead times are "          \
       "months, not weeks: press reports in early 2024 put H100 server "      \
       "lead times at 3-4 months, down from 8-11 months in 2023 (Tom's "      \
       "Hardware, Feb 2024); set the vendor's quote (docs/model/cost.md, "    \
       "Delivery lead time)")                                              \
    XX(PLAN_TRAIN_EFFICIENCY_SCALE,                                          \
       "plan.train_efficiency_scale", 1, NULL, "x calibrated efficiency",     \
       "plan",                                                                \
       "1: the training planner's GEMM efficiency as calibrated on the "      \
       "validation rows; a value scales it for every training and "           \
       "recurring workload of the plan (docs/model/uncertainty.md)")          \
    XX(PLAN_CLOUD_PRICE_SCALE,                                               \
       "plan.cloud_price_scale", 1, NULL, "x catalog price",                  \
       "plan",                                                                \
       "1: cloud instance and capacity-block prices as the catalog lists "    \
       "them (data/catalog/instances.csv); a value scales every one "         \
       "(docs/model/uncertainty.md)")                                         \
    XX(PLAN_CAPEX_SCALE,                                                     \
       "plan.capex_scale", 1, NULL, "x catalog capex",                        \
       "plan",                                                                \
       "1: on-prem server, network and storage capex as the catalog, the "    \
       "spec and the plan's price rows give them; a value scales them "       \
       "(docs/model/uncertainty.md)")                                         \
    XX(PLAN_POWER_PRICE_SCALE,                                               \
       "plan.power_price_scale", 1, NULL, "x catalog electricity price",      \
       "plan",                                                                \
       "1: the catalog's electricity price (EIA, data/catalog/parts.csv); "   \
       "a value scales it (docs/model/uncertainty.md)")                       \
    XX(PLAN_DEMAND_SCALE,                                                    \
       "plan.demand_scale", 1, NULL, "x planners' demand",                    \
       "plan",                                                                \
       "1: the GPU demand the planners size from the portfolio (runs, "       \
       "traffic and its growth); a value scales it, as a forecast error "     \
       "of the portfolio would (docs/model/uncertainty.md)")                  \
    XX(PLAN_TRAFFIC_SCALE,                                                   \
       "plan.traffic_scale", 1, NULL, "x services' traffic",                  \
       "plan",                                                                \
       "1: the inference services' requests/s as the spec gives them; a "    \
       "value scales every service's rate, replicas rounded up from the "     \
       "scaled rate (docs/model/uncertainty.md)")                             \
    XX(PLAN_GROWTH_SCALE,                                                    \
       "plan.growth_scale", 1, NULL, "x services' growth_per_quarter",        \
       "plan",                                                                \
       "1: each service's growth_per_quarter as the spec gives it; a value "  \
       "f makes month t's rate the spec's times ((1 + g f)/(1 + g))^(t/3) "   \
       "(docs/model/uncertainty.md)")

enum gp_default_id {
#define GP__DEF_ENUM(id, key, value, text, unit, users, source) GP_DEF_##id,
    GP_DEFAULTS_MAP (GP__DEF_ENUM)
#undef GP__DEF_ENUM
    GP_DEF__COUNT
};

/* One registry row (static storage, never freed). */
struct gp_default_info {
    enum gp_default_id id;
    const char *key;    /* e.g. "reliability.restart_s" */
    double value;       /* the default, in 'unit' (0: categorical) */
    const char *text;   /* categorical default, or NULL for a number */
    const char *unit;
    const char *users;  /* "train,plan,sim" */
    const char *source;
};

/* Distributions of the uncertain rows (docs/model/uncertainty.md): a
 * second table keyed by registry key.  Each entry describes the row's
 * value as a FACTOR on the value in force (the registry's, or a spec's or
 * flag's override), so an override moves the whole distribution:
 *
 * XX("key", KIND, a, b, c, "source")
 *   NORMAL:     factor 1 + a z (z standard normal), truncated at 0;
 *   LOGNORMAL:  factor exp(a z): median 1, a = sigma of ln(factor);
 *   TRIANGULAR: factor from a (low) over b (mode) to c (high);
 *   UNIFORM:    factor from a to b.
 * The source says where the spread comes from.  `gpuplan assumptions`
 * shows each row's distribution; gp_plan_sample() draws from them.
 */
#define GP_DEFAULT_DISTS(XX)                                                  \
    XX("plan.train_efficiency_scale", LOGNORMAL, 0.102, 0, 0,                 \
       "held-out error of the training model: `gpuplan validate training "    \
       "validation/training/*.csv` (nine files, 308 rows) gives a median "    \
       "absolute error of 6.9 % in-sample and 6.6 % leave-one-source-out; "   \
       "a median absolute z of 0.6745 gives sigma = 0.069 / 0.6745 = 0.102 "  \
       "(the larger of the two errors)")                                      \
    XX("plan.cloud_price_scale", LOGNORMAL, 0.23, 0, 0,                       \
       "spread of the published on-demand price per GPU of one "             \
       "accelerator across clouds and regions in data/catalog/"               \
       "instances.csv: pooled sd of ln(price) about each accelerator's "      \
       "median, 0.23 over the 10 unflagged rows of the A100-40GB, "           \
       "A100-80GB, H100 and H200 listed on two or more clouds")               \
    XX("plan.capex_scale", TRIANGULAR, 0.8, 1.0, 1.3,                         \
       "catalog capex rows: H100 street price 25,000-30,000 USD (Raymond "    \
       "James via Epoch AI, 2023) against the 30,000 USD used, and the "      \
       "TCO tool's own +/-20-40 % (aiinframap.com, parts.csv): low 0.8, "     \
       "high 1.3")                                                            \
    XX("plan.power_price_scale", LOGNORMAL, 0.30, 0, 0,                       \
       "spread of US industrial electricity prices across Census "            \
       "divisions (EIA Electric Power Monthly, YTD Jul 2024, the catalog's "  \
       "eia-industrial rows): sd of ln(price) 0.31")                          \
    XX("plan.demand_scale", TRIANGULAR, 0.7, 1.0, 1.3,                        \
       "planning assumption, no published forecast error: the span of the "  \
       "demand sensitivity row (plan.sensitivity_demand, +/-30 %) as the "    \
       "bounds, mode 1")                                                      \
    XX("plan.traffic_scale", LOGNORMAL, 0.40, 0, 0,                           \
       "planning assumption, no published spread of forecast against "       \
       "realised traffic of a new service: sd of ln(traffic) 0.4 (a P10-P90 " \
       "of 0.6x-1.7x)")                                                       \
    XX("plan.growth_scale", TRIANGULAR, 0.0, 1.0, 2.0,                        \
       "planning assumption, no published error of growth forecasts: from "  \
       "no growth (0) to twice the spec's growth (2), mode as given")         \
    XX("plan.reserved_1y_discount", TRIANGULAR, 0.67, 1.0, 1.5,               \
       "1-year commitments: 20-45 % off on-demand; AWS Savings Plans "        \
       "advertise up to 72 % for 3-year terms, 1-year terms about half "      \
       "of that (planning range around the registry's 30 %)")                 \
    XX("plan.reserved_3y_discount", TRIANGULAR, 0.8, 1.0, 1.44,               \
       "3-year commitments: 40-72 % off on-demand; 72 % is the most AWS "     \
       "Savings Plans advertise (planning range around the registry's "       \
       "50 %)")                                                               \
    XX("plan.spot_interruptions_per_node_month", TRIANGULAR, 0.5, 1.0, 2.0,   \
       "AWS Spot Instance Advisor frequency buckets (<5, 5-10, 10-15, "       \
       "15-20, >20 % per month): GPU instances sit in the top buckets; "      \
       "10-40 %/month around the registry's 20 % (the top bucket is "         \
       "open-ended: twice its floor as the high end)")                        \
    XX("train.default_days", LOGNORMAL, 0.5, 0, 0,                            \
       "spread of the 7 published pre-training durations behind the "        \
       "registry's 56 days (docs/model/defaults.md, Default deadline): "      \
       "median absolute deviation of ln(days) about ln(56) 0.337, / 0.6745 "  \
       "= sigma 0.50 (the durations span 0.17x to 2.1x the median)")         \
    XX("reliability.fail_per_gpu_hour", LOGNORMAL, 0.5, 0, 0,                 \
       "median: Llama 3's 419 unexpected interruptions in 54 days on "        \
       "16,384 H100 GPUs (Dubey et al. 2024, sec. 3.3.4); the Poisson "       \
       "error of 419 events is 5 %, the spread (a factor 1.65 at one "        \
       "sigma) is a planning range for fleets of another age, vendor and "    \
       "scale")                                                               \
    XX("reliability.restart_s", TRIANGULAR, 0.25, 1.0, 2.0,                   \
       "recovery stall per interruption: 10 minutes at O(100K) GPUs "         \
       "(Salpekar et al. 2026) as the mode; a checkpoint reload alone on a "  \
       "small job (a few minutes) to twice the mode for a slow "              \
       "reschedule: 150-1200 s")                                              \
    XX("reliability.node_repair_h", TRIANGULAR, 0.5, 1.0, 2.0,                \
       "a node out for a reboot-and-burn-in day to four days for a part; "    \
       "mode the registry's two days (78 % of Llama 3's interruptions were "  \
       "hardware, sec. 3.3.4)")                                               \
    XX("plan.delivery_lead_time_months", TRIANGULAR, 0.75, 1.0, 2.5,          \
       "server lead times: 3-4 months in early 2024, 8-11 in 2023 (Tom's "    \
       "Hardware, Feb 2024): a vendor quote may slip to 2.5x; 0 (the "        \
       "default) stays 0")

enum gp_dist_kind {
    GP_DIST_NORMAL,
    GP_DIST_LOGNORMAL,
    GP_DIST_TRIANGULAR,
    GP_DIST_UNIFORM,
};

/* One distribution row (static storage, never freed). */
struct gp_default_dist {
    const char *key;            /* registry key */
    enum gp_dist_kind kind;
    double a, b, c;             /* parameters of 'kind' (see above) */
    const char *source;
};

/* The keyword of 'k' ("normal", "lognormal", "triangular", "uniform");
 * "?" outside the enum.  Static storage.
 */
const char *gp_dist_kind_str (enum gp_dist_kind k);

/* Number of distribution rows, and row 'i' (NULL out of range). */
size_t gp_default_dists_count (void);
const struct gp_default_dist *gp_default_dist_at (size_t i);

/* The distribution of registry row 'id', or NULL when the row is not
 * uncertain (no distribution).
 */
const struct gp_default_dist *gp_default_dist (enum gp_default_id id);

/* The factor at probability 'u' (0 < u < 1) of 'd': its quantile
 * function (inverse CDF); a NORMAL factor is at least 0.  NAN for NULL
 * 'd' or 'u' outside (0, 1).
 */
double gp_default_dist_quantile (const struct gp_default_dist *d, double u);

/* 'd' in words: "lognormal sigma 0.125", "triangular 0.8/1/1.3",
 * "normal sd 0.1", "uniform 0.5..2" (factors on the value in force),
 * into 'buf' of 'size' bytes.  Returns 'buf'.
 */
char *gp_default_dist_str (const struct gp_default_dist *d, char *buf,
                           size_t size);

/* The values in force: the registry's, with overrides.  A plain value
 * type: copy it freely.
 */
#define GP_DEFAULT_TEXT_MAX 16

struct gp_defaults {
    double v[GP_DEF__COUNT];
    char text[GP_DEF__COUNT][GP_DEFAULT_TEXT_MAX]; /* "" for numbers */
    unsigned char overridden[GP_DEF__COUNT];
};

/* Number of registry rows, and row 'i' (< gp_defaults_count()); row i has
 * id i.  Returns NULL for i out of range.
 */
size_t gp_defaults_count (void);
const struct gp_default_info *gp_default_info (size_t i);

/* Fill 'd' with the registry's values, none overridden. */
void gp_defaults_init (struct gp_defaults *d);

/* Find the row named 'key'.  Returns its id (>= 0), or GP_ENOTFOUND with
 * 'err' naming the key and the closest known keys.
 */
int gp_default_lookup (const char *key, gp_error_t *err);

/* Override 'key' with 'value' (in the row's unit) in 'd'.  Returns 0, or
 * GP_ENOTFOUND for an unknown key, or GP_ERANGE for a non-finite or
 * negative value; 'd' is unchanged on failure.
 */
int gp_defaults_set (struct gp_defaults *d, const char *key, double value,
                     gp_error_t *err);

/* The value of 'id' in 'd', or the registry's value when 'd' is NULL;
 * NAN for an id out of range.
 */
double gp_default (const struct gp_defaults *d, enum gp_default_id id);

/* Override the categorical row 'key' with 'text' (at most
 * GP_DEFAULT_TEXT_MAX - 1 characters; the model that reads the row checks
 * the word).  Returns 0, GP_ENOTFOUND for an unknown key, or GP_EINVAL for
 * a numeric row or a text too long; 'd' is unchanged on failure.
 */
int gp_defaults_set_text (struct gp_defaults *d, const char *key,
                          const char *text, gp_error_t *err);

/* The text of the categorical row 'id' in 'd' (the registry's when 'd' is
 * NULL): static or borrowed from 'd'.  NULL for a numeric row or an id out
 * of range.
 */
const char *gp_default_text (const struct gp_defaults *d,
                             enum gp_default_id id);

/* 1 when the row's users list names 'model' ("train", "infer", "sim",
 * "plan"), else 0.
 */
int gp_default_used_by (const struct gp_default_info *row,
                        const char *model);

/* Apply one "key=value" override (a flag such as --set): a number for a
 * numeric row (units as in the row), a word for a categorical one.
 * Returns 0, GP_EINVAL for a malformed assignment or value, or the
 * errors of gp_defaults_set / gp_defaults_set_text; 'd' is unchanged on
 * failure.
 */
int gp_defaults_set_str (struct gp_defaults *d, const char *assignment,
                         gp_error_t *err);

struct json_t;

/* The registry with the values in 'd' (the registry's when NULL) as a JSON
 * document (docs/model/defaults.md):
 *   {"defaults": [{"key", "value" (number, or string for a categorical
 *   row), "unit", "users": [..], "source", "overridden"}, ...]}
 * in registry order.  The caller releases it with json_decref(); NULL on
 * allocation failure.
 */
struct json_t *gp_defaults_json (const struct gp_defaults *d);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_DEFAULTS_H */
