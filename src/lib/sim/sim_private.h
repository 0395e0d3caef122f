/* sim_private.h - state shared by the simulator's files (engine, cluster
 * state and placement, metrics).  Nothing here is public.
 */
#ifndef GPUPLAN_SIM_PRIVATE_H
#define GPUPLAN_SIM_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/policy.h"
#include "gpuplan/sim.h"

#define NONE UINT32_MAX

/* Allocations are counted exactly in 1/7000 GPU: a whole GPU, a
 * milli-GPU share (7 each) and a MIG compute slice of 7 (1000 each) are
 * all integers.
 */
#define GP_MICRO 7000

enum sjob_state { S_FUTURE, S_PENDING, S_RUNNING, S_DONE, S_UNFIT };

struct alloc {
    int32_t node;
    int32_t n;
};

/* Simulator state of one job in the system (arrived, not finished):
 * slot s->slot[j] of the pool s->jobs, taken at arrival and given back
 * at the finish (gp__job_activate, gp__job_retire), so memory follows the
 * number of jobs in the system, not the trace length.  The job's state
 * (enum sjob_state) is kept for every job in s->st.
 */
struct sjob {
    double submit;
    double duration;       /* ideal run time */
    double remaining;      /* ideal work left, from the last checkpoint */
    double seg_start;      /* current segment: start time */
    double seg_over;       /* restart overhead at the segment's start */
    double seg_factor;     /* slowdown >= 1 of the current placement */
    double end;            /* expected end of the current segment */
    double attained;       /* GPU-s held before the current segment */
    double since;          /* entered the queue / started */
    double ckpt;           /* checkpoint interval (0 = never) */
    double comm;           /* comm share */
    uint32_t gen;          /* invalidates stale events */
    int64_t mu;            /* GPUs held by the current/last placement,
                              in 1/GP_MICRO GPU (JOB_GPUS: in GPUs) */
    int32_t n;             /* GPUs */
    int32_t sgpu;          /* pool GPU slot of a shared placement */
    int16_t milli;         /* requested share of one GPU (1..1000) */
    int16_t su;            /* share units on one shared GPU, 0 = whole */
    int32_t team;
    int32_t prio;
    int32_t pool_req;      /* cluster pool index or -1 */
    int32_t pool_used;
    int32_t n_alloc;
    struct alloc one;      /* when n_alloc == 1 */
    struct alloc *many;    /* when n_alloc > 1 */
    uint8_t ran;           /* has run before (restart cost applies) */
};

/* State of job 'j' (index in the job set); the job must be in the
 * system (s->slot[j] != NONE).
 */
#define SJ(s, j) (&(s)->jobs[(s)->slot[j]])

#define JOB_GPUS(jb) ((double)(jb)->mu / GP_MICRO)

/* Heap entry: two-part key, then job index for a total order. */
struct hent {
    double k0, k1;
    uint32_t j;
};

/* Indexed min-heap of jobs; 'pos' (shared by heaps that hold disjoint
 * jobs) maps job -> slot, -1 when absent.
 */
struct jheap {
    struct hent *a;
    size_t n, cap;
    int32_t *pos;
};

struct event {
    double t;
    uint32_t kind;  /* enum ev_kind; lower first at equal times */
    uint32_t j;     /* job or node */
    uint32_t gen;
};

enum ev_kind { EV_FINISH, EV_FAIL, EV_REPAIR, EV_REKEY };

struct node {
    int32_t free;
    int32_t gpn;
    int32_t pool;
    int32_t rack;    /* global rack index */
    int32_t dom;     /* global scale-up domain index */
    int32_t next, prev; /* bucket list by free count */
    uint8_t down;
};

struct spool {
    int32_t first, count;  /* node range */
    int32_t gpn;
    int32_t dom_gpus;      /* scale-up domain size in GPUs */
    int32_t rack_first, n_racks;
    int32_t *head;         /* bucket heads, free = 0..gpn */
    int64_t *cnt;          /* bucket sizes */
    int32_t *seg;          /* segment tree of max free (first fit) */
    int32_t seg_size;
    long long free;        /* free GPUs on up nodes */
    long long total;       /* GPUs of all nodes */
    /* GPU sharing (cap_u > 0): share units per GPU (1000 milli-GPU, or
     * GP_MIG_SLICES MIG slices), the size of a unit in 1/GP_MICRO GPU,
     * units used per GPU slot (gpn slots per node; 0 = not shared:
     * idle or held whole), and partly used slots in lists by free units.
     */
    int32_t cap_u, micro_u;
    int32_t *gused, *gnext, *gprev;
    int32_t *ghead;        /* cap_u + 1 heads */
};

struct steam {
    const char *name;
    int ct;                /* cluster team or -1 */
    double weight;
    int prio;
    double quota, borrow, lend; /* -1 = none / unlimited */
    int cohort;
    int per_pool;          /* quota given per pool */
    double *pq, *pborrow, *plend; /* per pool (per_pool), -1 = none */
    int64_t *pused_u;      /* per pool, 1/GP_MICRO GPU */
    int64_t used_u;        /* GPUs held now, 1/GP_MICRO GPU */
    double used;           /* GPUs held now */
    double gpu_s;          /* GPU-seconds held */
    double peak;
    size_t n_preempted;
    struct jheap q;        /* pending jobs (GP_POLICY_TEAMS) */
    int blocked;           /* scratch during one pass */
    double key;            /* team_key, cached during one pass */
};

/* pindex.c: the pending set by rank, for backfill scans */
#define GP_PIDX_NCLS 5
struct pnode {
    int32_t cnt;               /* pending jobs below */
    int32_t min_n;             /* smallest GPU count */
    float est[GP_PIDX_NCLS];   /* smallest run estimate per GPU class */
};

struct pidx {
    int on;                    /* built (policy with fixed keys) */
    uint32_t *rank_of;         /* job -> rank, NONE for unfit jobs */
    uint32_t *job_at;          /* rank -> job */
    uint8_t *in;               /* rank is pending */
    size_t nrank, size;        /* ranks; leaves of the tree (buckets) */
    struct pnode *t;           /* 2 x size nodes, root at 1 */
};

/* ptreap.c: the pending set as an ordered tree (LAS, SRTF) */
struct tnode {
    double k0, k1;             /* key while pending */
    uint32_t l, r, cnt;        /* children, subtree size */
    int32_t mn, mb;            /* smallest GPU count below of jobs that
                                  fit one node / of larger jobs */
    int32_t n;                 /* the job's GPUs */
    uint8_t tried;             /* failed in this pass: counted as absent */
};

struct ptreap {
    int on;
    uint32_t root;
    int32_t gpn;               /* node size (one pool), else INT32_MAX */
    struct tnode *nd;          /* per job */
};

struct gp_sim {
    struct gp_sim_config cfg;
    const struct gp_policy_ops *ops;
    void *pstate;          /* the policy's state (ops->init), or NULL */
    const struct gp_jobset *js;
    size_t n;
    struct sjob *jobs;     /* pool of job states, see SJ */
    size_t n_jobs_cap;     /* slots allocated */
    size_t n_jobs_used;    /* slots ever handed out */
    uint32_t *slot;        /* job -> slot, NONE when not in the system */
    uint32_t *free_slots;  /* stack of given-back slots */
    size_t n_free;
    uint8_t *st;           /* job -> enum sjob_state */
    int *pool_map;         /* job-set pool -> cluster pool or -1 */
    struct gp_job_result *res;
    uint32_t *order;       /* jobs by submit time */
    size_t cursor;
    double now;

    /* cluster */
    struct node *nodes;
    size_t n_nodes;
    struct spool *pools;
    size_t n_pools;
    long long *rack_free;
    size_t n_racks;
    long long total_gpus, free_gpus;
    long long alloc_u;     /* allocated, 1/GP_MICRO GPU */
    long long n_partial;   /* shared GPUs with free units */
    int max_gpn;
    int32_t *scratch;      /* per node, zero between uses */
    uint32_t *dom_seen;    /* per scale-up domain (at most one per node):
                              the stamp of the last gp__slowdown that met
                              it */
    uint32_t dom_stamp;

    /* queues */
    struct event *ev;
    size_t n_ev, cap_ev;
    int32_t *ppos, *vpos, *epos;
    struct jheap pend, vict, ends;
    size_t n_pending, n_running;
    int64_t *pend_size;    /* pending jobs by GPU count (<= max_gpn+1) */
    struct pidx pidx;      /* rank index of 'pend' (pindex.c) */
    struct ptreap ptreap;  /* ordered tree of 'pend' (ptreap.c) */

    /* teams */
    struct steam *teams;
    size_t n_teams;
    int team_keys_stale;   /* recompute steam.key before the next pick */
    double *team_pool_d;   /* backing of steam.pq/pborrow/plend */
    int64_t *team_pool_u;  /* backing of steam.pused_u */

    /* accumulators */
    double t_last;
    double alloc_gpu_s, seg_gpu_s, useful_gpu_s, lost_gpu_s, restart_gpu_s,
        slow_gpu_s, frag_gpu_s, idle_wait_gpu_s, queue_s;
    size_t n_preempt, n_fail, n_events;
    uint64_t rng;
    struct gp_sim_sample *series;
    size_t n_series, cap_series;
    double series_iv;      /* bucket width now (coarsened, guard.c) */
    size_t ev_by_kind[5];  /* events by enum ev_kind, then arrivals */
    struct gp_sim_metrics m;
    int ran;
};

/* The simulator as a policy sees it (policy.h). */
#define SCHED(s) ((const struct gp_sched *)(const void *)(s))

/* heap.c */
void gp__jheap_push (struct jheap *h, uint32_t j, double k0, double k1);
void gp__jheap_remove (struct jheap *h, uint32_t j);
int gp__jheap_grow (struct jheap *h, size_t cap);
/* Visit heap entries in key order without modifying the heap: a small
 * auxiliary heap of slot indices ('k smallest of a heap' in O(k log k)).
 */
struct walk {
    const struct jheap *h;
    size_t *a;
    size_t n, cap;
    int oom;    /* set when a step ran out of memory (the walk then ends) */
};

void gp__walk_start (struct walk *w, const struct jheap *h);
/* Next job in key order, or NONE when the heap is exhausted. */
uint32_t gp__walk_next (struct walk *w);
/* Push an event at time 't' on node or job 'j'; 0 or -1 (no memory). */
int gp__ev_push (struct gp_sim *s, double t, enum ev_kind kind, uint32_t j,
                 uint32_t gen);
/* Pop the earliest event (the heap must not be empty). */
struct event gp__ev_pop (struct gp_sim *s);

/* create.c: give job 'j' a state slot filled from the job set and the
 * configuration (0, or GP_ENOMEM); give it back (the job leaves the
 * system).  Pointers from SJ are invalid after gp__job_activate.
 */
int gp__job_activate (struct gp_sim *s, uint32_t j);
void gp__job_retire (struct gp_sim *s, uint32_t j);

/* engine.c: bookkeeping of starts, stops and re-queues */
int gp__start_job (struct gp_sim *s, uint32_t j);
void gp__stop_job (struct gp_sim *s, uint32_t j, int done);
void gp__requeue (struct gp_sim *s, uint32_t j, int failed);

/* preempt.c: evict victims so that waiting job 'p' fits in 'pool';
 * returns 1 when it was placed.
 */
int gp__try_preempt (struct gp_sim *s, uint32_t p, int32_t pool,
                     struct walk *w, uint32_t **vbuf, size_t *vcap);

/* schedule.c: scratch of one scheduling pass, and the pass itself */
struct pass {
    uint32_t *tried;
    size_t nt, tcap;
    uint32_t *vbuf;
    size_t vcap;
    struct walk w;
    /* GP_POLICY_ORDERED: smallest GPU count, and its pool request, of a
     * job whose victim scan failed since the last start (INT32_MAX =
     * none); schedule.c
     */
    int32_t fail_n, fail_pool;
};

int gp__schedule (struct gp_sim *s, struct pass *ps);

/* cluster.c */
/* Leftmost node (global index) of pool 'p' with at least 'n' free GPUs,
 * or -1; node_set_free/down/up below also live in cluster.c.
 */
int32_t gp__seg_first (const struct spool *p, int32_t n);
int gp__cluster_init (struct gp_sim *s, gp_error_t *err);
void gp__cluster_free (struct gp_sim *s);

/* place.c */
/* Place job 'j' now if possible (commits); returns 1 when placed. */
int gp__place (struct gp_sim *s, uint32_t j);
/* The same, in pool 'pool' only. */
int gp__place_in (struct gp_sim *s, uint32_t j, int32_t pool);
/* Share units job 'j' takes on one GPU of 'pool'; 0 = whole GPUs. */
int32_t gp__job_units (const struct gp_sim *s, uint32_t j, int32_t pool);
/* GPUs job 'j' holds when placed in 'pool' (a fraction when shared). */
double gp__job_gpus (const struct gp_sim *s, uint32_t j, int32_t pool);
void gp__release (struct gp_sim *s, uint32_t j);
/* Largest GPU count job 'j' could ever get (to reject jobs that never fit). */
long long gp__capacity_for (const struct gp_sim *s, uint32_t j);
/* Free GPUs usable by job 'j' (its pool or all). */
long long gp__free_for (const struct gp_sim *s, uint32_t j);
/* Idle GPUs no pending job can use (see simulator.md). */
double gp__fragmented (const struct gp_sim *s);
void gp__node_set_free (struct gp_sim *s, int32_t node, int32_t free);
void gp__node_down (struct gp_sim *s, int32_t node);
void gp__node_up (struct gp_sim *s, int32_t node);
double gp__slowdown (struct gp_sim *s, uint32_t j);

/* fill.c, fill_read.c: most GPUs of one node in a fill experiment */
#define GP_FILL_MAX_GPN 16

/* pindex.c */
struct pidx_query {
    uint32_t after;            /* rank to start after (NONE = from 0) */
    size_t last;               /* last rank to consider */
    long long free, extra;     /* free GPUs, GPUs the head leaves */
    double shadow;             /* the head's reservation */
    double slack_s;            /* set by gp__pidx_next */
    long long fit_node;        /* set: largest free block (one pool) */
    int32_t gpn;               /* set: node size (one pool) or INT32_MAX */
};
int gp__pidx_init (struct gp_sim *s);
void gp__pidx_free (struct gp_sim *s);
/* Mark job 'j' pending (in = 1) or not in the index. */
void gp__pidx_set (struct gp_sim *s, uint32_t j, int in);
/* Rank of the k-th pending job (1-based), or NONE. */
uint32_t gp__pidx_nth (const struct gp_sim *s, size_t k);
/* First pending rank in (after, last] that fits 'free' GPUs and fits
 * 'extra' or ends by 'shadow'; NONE when there is none.
 */
uint32_t gp__pidx_next (const struct gp_sim *s, struct pidx_query *q);
int gp__ptreap_init (struct gp_sim *s);
void gp__ptreap_free (struct gp_sim *s);
void gp__ptreap_insert (struct gp_sim *s, uint32_t j, double k0, double k1);
void gp__ptreap_remove (struct gp_sim *s, uint32_t j);
/* Pending jobs before 'j' in key order ('j' need not be pending). */
size_t gp__ptreap_count_before (const struct gp_sim *s, uint32_t j);
/* First pending job after 'after' (NONE = from the start) in key order
 * that could be placed on 'free' GPUs (with one pool, a job that fits one
 * node also needs a node with that many free), or NONE.
 */
uint32_t gp__ptreap_next_fit (const struct gp_sim *s, uint32_t after,
                              long long free);
/* Mark job 'j' (in the tree) as tried in this pass (absent from counts
 * and searches) or not.
 */
void gp__ptreap_mark (struct gp_sim *s, uint32_t j, int tried);
/* First job in key order not marked tried, or NONE. */
uint32_t gp__ptreap_first (const struct gp_sim *s);
/* Pending heap with its index kept in step (engine.c). */
void gp__pend_push (struct gp_sim *s, uint32_t j, double k0, double k1);
void gp__pend_remove (struct gp_sim *s, uint32_t j);

/* guard.c: range checks, progress check, event cap, bounded series */
int gp__config_check (const struct gp_sim_config *cfg, gp_error_t *err);
int gp__progress_check (const struct gp_sim *s, gp_error_t *err);
size_t gp__event_cap (const struct gp_sim *s);
int gp__event_cap_error (const struct gp_sim *s, gp_error_t *err);
void gp__series_add (struct gp_sim *s, double t0, double t1);

/* metrics.c */
int gp__metrics_finish (struct gp_sim *s, gp_error_t *err);

#endif
