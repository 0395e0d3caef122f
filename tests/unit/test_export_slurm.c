/* test_export_slurm.c - the Slurm export (src/lib/export/slurm*.c).
 *
 * Expected values are worked out by hand from docs/formats/export-slurm.md
 * and the Slurm 22.05 slurm.conf / sacctmgr documentation; the real
 * daemons are exercised by tests/export/slurm/live.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/gpuplan.h"
#include "export_fixture.h"

/* Render 'spec' for Slurm; NULL with 'err' set on failure. */
static struct gp_export *render (const char *spec, gp_error_t *err)
{
    struct gp_cluster *c = fx_cluster_ok (spec, "s.yaml");
    struct gp_export *x = gp_export_render (c, GP_EXPORT_SLURM, err);
    gp_cluster_destroy (c);
    return x;
}

static struct gp_export *render_ok (const char *spec)
{
    gp_error_t err = {0};
    struct gp_export *x = render (spec, &err);
    if (!x)
        fail_msg ("%s", err.text);
    assert_int_equal (x->n_files, 4);
    return x;
}

/* Five 2-GPU jobs on an 8-GPU node ran one at a time: without a default
 * memory per GPU each job gets the whole node's memory.  112 CPUs and
 * 2 TiB: RealMemory = floor(2097152 MiB x 0.97) = 2034237; per GPU
 * floor(2034237 / 8) = 254279 MiB and 112 / 8 = 14 CPUs.  112 CPUs are
 * 2 sockets of 56 cores, one thread each (not 112 sockets).
 */
static void test_node_sharing (void **state)
{
    (void)state;
    struct gp_export *x = render_ok (
        "name: lab\npools:\n"
        "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, "
        "nodes: 4, cpus_per_node: 112, host_memory: 2TiB}\n");
    const char *t = x->files[0].text;
    has (t, "NodeName=h100-[001-004] Gres=gpu:h100-sxm:8 CPUs=112 Sockets=2 "
            "CoresPerSocket=56 ThreadsPerCore=1 RealMemory=2034237 "
            "State=UNKNOWN\n");
    has (t, "PartitionName=h100 Nodes=h100-[001-004] Default=YES "
            "DefaultTime=1-00:00:00 MaxTime=7-00:00:00 DefCpuPerGPU=14 "
            "DefMemPerGPU=254279 State=UP");
    has (t, "SelectTypeParameters=CR_Core_Memory\n");
    lacks (t, "MaxTime=INFINITE");
    gp_export_destroy (x);
}

/* A pool without CPUs and memory takes the smallest catalog host with the
 * same accelerator and GPU count: MI300X x 8 is Azure ND96isr_MI300X_v5,
 * 96 vCPUs (hardware threads: 2 sockets x 24 cores x 2 threads) and
 * 1850 GiB (floor(1894400 MiB x 0.97) = 1837568; / 8 = 229696).  Never
 * CPUs=1 RealMemory=1.
 */
static void test_catalog_host (void **state)
{
    (void)state;
    struct gp_export *x = render_ok (
        "name: lab\npools:\n"
        "  - {name: mi, accelerator: MI300X, gpus_per_node: 8, nodes: 2}\n"
        "  - {name: odd, accelerator: H100-SXM, gpus_per_node: 4, nodes: 1,"
        " cpus_per_node: 6, host_memory: 64GiB}\n");
    const char *t = x->files[0].text;
    has (t, "# pool mi: host from the catalog: CPUs of "
            "Standard_ND96isr_MI300X_v5, memory of "
            "Standard_ND96isr_MI300X_v5\n");
    has (t, "NodeName=mi-[001-002] Gres=gpu:mi300x:8 CPUs=96 Sockets=2 "
            "CoresPerSocket=24 ThreadsPerCore=2 RealMemory=1837568 ");
    has (t, "DefCpuPerGPU=12 DefMemPerGPU=229696 ");
    /* 6 cores: one socket (fewer than 16); 65536 x 0.97 = 63569.92. */
    has (t, "NodeName=odd-001 Gres=gpu:h100-sxm:4 CPUs=6 Sockets=1 "
            "CoresPerSocket=6 ThreadsPerCore=1 RealMemory=63569 ");
    has (t, "DefCpuPerGPU=1 DefMemPerGPU=15892 ");
    lacks (t, "CPUs=1 ");
    lacks (t, "RealMemory=1 ");
    /* gres.conf: AMD render nodes, NVIDIA device files. */
    has (x->files[1].text, "AutoDetect=off\n");
    has (x->files[1].text,
         "NodeName=mi-[001-002] Name=gpu Type=mi300x "
         "File=/dev/dri/renderD[128-135]\n");
    has (x->files[1].text,
         "NodeName=odd-001 Name=gpu Type=h100-sxm File=/dev/nvidia[0-3]\n");
    gp_export_destroy (x);
}

/* No host in the spec or the catalog (no instance has 3 H100 PCIe): an
 * error naming the pool and the keys to set.
 */
static void test_no_host (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_null (render (
        "name: lab\npools:\n"
        "  - {name: a, accelerator: H100-SXM, gpus_per_node: 8, nodes: 1,"
        " cpus_per_node: 64, host_memory: 1TiB}\n"
        "  - {name: pc, accelerator: H100-PCIE, gpus_per_node: 3, nodes: 2,"
        " cpus_per_node: 32}\n",
        &err));
    assert_int_equal (err.code, GP_EINVAL);
    has (err.text, "pools[1] 'pc': host_memory is not given");
    has (err.text, "pools[1].host_memory");
}

/* Trainium, Gaudi and TPU have no Slurm GRES plugin: refused, naming the
 * pool, instead of 'gres gpu' nodes that drain.
 */
static void test_non_gpu (void **state)
{
    (void)state;
    static const char *const accel[] = {"TRN1", "GAUDI3", "TPU-V5P"};
    for (size_t i = 0; i < 3; i++) {
        char spec[512];
        snprintf (spec, sizeof spec,
                  "name: lab\npools:\n"
                  "  - {name: a, accelerator: H100-SXM, gpus_per_node: 8, "
                  "nodes: 1, cpus_per_node: 64, host_memory: 1TiB}\n"
                  "  - {name: acc, accelerator: %s, gpus_per_node: 8, "
                  "nodes: 1, cpus_per_node: 64, host_memory: 1TiB}\n",
                  accel[i]);
        gp_error_t err = {0};
        assert_null (render (spec, &err));
        assert_int_equal (err.code, GP_ENOTSUP);
        has (err.text, "pools[1] 'acc'");
        has (err.text, accel[i]);
    }
}

static const char teams_spec[] =
    "name: lab\npools:\n"
    "  - {name: h1, accelerator: H100-SXM, gpus_per_node: 8, nodes: 2,"
    " cpus_per_node: 64, host_memory: 1TiB}\n"
    "  - {name: h2, accelerator: H100-SXM, gpus_per_node: 8, nodes: 1,"
    " cpus_per_node: 64, host_memory: 1TiB}\n"
    "  - {name: mi, accelerator: MI300X, gpus_per_node: 8, nodes: 2,"
    " cpus_per_node: 64, host_memory: 1TiB}\n"
    "teams:\n"
    "  - {name: a, quota: {h1: 8, h2: 4, mi: 8}, cohort: c,"
    " borrowing_limit: 5, priority: -2}\n"
    "  - {name: b, quota: 10, cohort: c, priority: 3}\n"
    "  - {name: z, quota: {mi: 2}}\n"
    "  - {name: free}\n";

/* Per-pool quotas become typed GrpTRES: the pools of one accelerator
 * summed (h1 + h2 = 12 GPUs of h100-sxm), plus the untyped total.  a may
 * borrow 5, split 8:4:8 by largest remainder = 2, 1, 2 (h100-sxm 3,
 * mi300x 2): its borrowing QOS caps that, its account quota + borrowing.
 * A total quota (b) is the untyped limit alone (the simulator counts it
 * over all pools); without a borrowing limit b may borrow what its
 * cohort can lend, pool by pool: a's quotas 8 + 4 + 8 = 20 (GPUs outside
 * every cohort member's quota are nobody's to lend).
 */
static void test_typed_tres (void **state)
{
    (void)state;
    struct gp_export *x = render_ok (teams_spec);
    const char *conf = x->files[0].text, *sh = x->files[3].text;
    has (conf, "AccountingStorageTRES=gres/gpu,gres/gpu:h100-sxm,"
               "gres/gpu:mi300x\n");
    has (sh, "change modify qos where 'name=a' set Priority=0 "
             "'GrpTRES=gres/gpu=20,gres/gpu:h100-sxm=12,gres/gpu:mi300x=8'");
    has (sh, "change modify qos where 'name=a-borrow' set Priority=0 "
             "'GrpTRES=gres/gpu=5,gres/gpu:h100-sxm=3,gres/gpu:mi300x=2' "
             "PreemptMode=requeue\n");
    has (sh, "'QOS=a,a-borrow' 'DefaultQOS=a' "
             "'GrpTRES=gres/gpu=25,gres/gpu:h100-sxm=15,gres/gpu:mi300x=10'\n");
    has (sh, "change modify qos where 'name=b' set Priority=5 "
             "'GrpTRES=gres/gpu=10' ");
    has (sh, "change modify qos where 'name=b-borrow' set Priority=5 "
             "'GrpTRES=gres/gpu=20' PreemptMode=requeue\n");
    has (sh, "change modify qos where 'name=z' set Priority=2 "
             "'GrpTRES=gres/gpu=2,gres/gpu:h100-sxm=0,gres/gpu:mi300x=2'");
    /* No quota: no limit (a previous one is cleared). */
    has (sh, "change modify qos where 'name=free' set Priority=2 "
             "'GrpTRES=gres/gpu=-1'");
    gp_export_destroy (x);
}

/* Preemption as simulated: a team's QOS preempts every QOS of teams of
 * strictly lower priority (priority policy) and the borrowing QOS of the
 * other teams of its cohort (reclaim); priorities -2, 3, 0, 0 are shifted
 * by 2 (QOS priorities are unsigned).  Borrowing QOS preempt nothing, and
 * no QOS gets an empty Preempt=.
 */
static void test_preempt (void **state)
{
    (void)state;
    struct gp_export *x = render_ok (teams_spec);
    const char *conf = x->files[0].text, *sh = x->files[3].text;
    has (conf, "PreemptType=preempt/qos\nPreemptMode=REQUEUE\nJobRequeue=1\n");
    /* a (-2): reclaims b's borrowing only. */
    has (sh, "'name=a' set Priority=0 'GrpTRES=gres/gpu=20,gres/gpu:"
             "h100-sxm=12,gres/gpu:mi300x=8' 'Preempt=b-borrow' "
             "PreemptMode=requeue\n");
    /* b (3): everything of lower priority, a's borrowing included. */
    has (sh, "'name=b' set Priority=5 'GrpTRES=gres/gpu=10' "
             "'Preempt=a,a-borrow,z,free' PreemptMode=requeue\n");
    /* z and free (0): a (-2) and its borrowing QOS. */
    has (sh, "'Preempt=a,a-borrow' PreemptMode=requeue\n");
    lacks (sh, "Preempt= ");
    lacks (sh, "'Preempt='");
    gp_export_destroy (x);
}

/* accounts.sh runs twice without failing or changing anything: every
 * add is guarded by a lookup, settings are applied with modify, the
 * cluster is named, and every spec string is one shell-quoted word.
 */
static void test_accounts_idempotent (void **state)
{
    (void)state;
    struct gp_export *x = render_ok (teams_spec);
    const char *sh = x->files[3].text;
    has (sh, "#!/bin/sh\n");
    has (sh, "set -eu\ncluster='lab'\n");
    has (sh, "listed \"$cluster\" show cluster format=cluster "
             "|| change add cluster \"$cluster\"\n");
    has (sh, "for q in 'a' 'a-borrow' 'b' 'b-borrow' 'z' 'free'; do\n"
             "    listed \"$q\" show qos format=name "
             "|| change add qos \"$q\"\n");
    has (sh, "listed 'a|' show assoc where cluster=\"$cluster\" 'account=a' "
             "format=account,user \\\n    || change add account 'a' "
             "cluster=\"$cluster\"\n");
    has (sh, "change modify account where 'name=a' cluster=\"$cluster\" set "
             "Fairshare=100 ");
    /* Users from USER:TEAM arguments, each once. */
    has (sh, "    'a'|'b'|'z'|'free') ;;\n");
    has (sh, "|| change add user \"$user\" account=\"$team\" "
             "cluster=\"$cluster\"\n");
    /* The GPU TRES must exist (slurmctld registers it) before limits. */
    has (sh, "for t in gpu 'gpu:h100-sxm' 'gpu:mi300x'; do\n");
    /* No unguarded add (the old script failed on its second run). */
    for (const char *p = strstr (sh, "sacctmgr -i add"); p;
         p = strstr (p + 1, "sacctmgr -i add"))
        fail_msg ("unguarded add in:\n%s", sh);
    gp_export_destroy (x);
}

/* A team named like another team's borrowing QOS would share it. */
static void test_borrow_name_clash (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_null (render (
        "name: lab\npools:\n"
        "  - {name: h, accelerator: H100-SXM, gpus_per_node: 8, nodes: 2,"
        " cpus_per_node: 64, host_memory: 1TiB}\n"
        "teams:\n"
        "  - {name: a, quota: 4, cohort: c}\n"
        "  - {name: a-borrow, quota: 4, cohort: c}\n",
        &err));
    assert_int_equal (err.code, GP_EINVAL);
    has (err.text, "teams[1].name 'a-borrow'");
}

/* Names Slurm would lowercase are refused before anything is written, so
 * what sacctmgr stores is the spec's name (checked live as well).
 */
static void test_names (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_null (render (
        "name: Lab\npools:\n"
        "  - {name: h, accelerator: H100-SXM, gpus_per_node: 8, nodes: 1,"
        " cpus_per_node: 64, host_memory: 1TiB}\n",
        &err));
    assert_int_equal (err.code, GP_EINVAL);
    has (err.text, "name 'Lab'");
    assert_null (render (
        "name: lab\npools:\n"
        "  - {name: h, accelerator: H100-SXM, gpus_per_node: 8, nodes: 1,"
        " cpus_per_node: 64, host_memory: 1TiB}\n"
        "teams:\n  - {name: \"x'; rm -rf /\", quota: 1}\n",
        &err));
    has (err.text, "teams[0].name");
    struct gp_export *x = render_ok (
        "name: lab\npools:\n"
        "  - {name: h, accelerator: H100-SXM, gpus_per_node: 8, nodes: 1,"
        " cpus_per_node: 64, host_memory: 1TiB}\n"
        "teams:\n  - {name: ml_team-2, quota: 4}\n");
    has (x->files[3].text, "change modify qos where 'name=ml_team-2' ");
    gp_export_destroy (x);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_node_sharing),
        cmocka_unit_test (test_catalog_host),
        cmocka_unit_test (test_no_host),
        cmocka_unit_test (test_non_gpu),
        cmocka_unit_test (test_typed_tres),
        cmocka_unit_test (test_preempt),
        cmocka_unit_test (test_accounts_idempotent),
        cmocka_unit_test (test_borrow_name_clash),
        cmocka_unit_test (test_names),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
