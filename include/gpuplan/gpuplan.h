/* gpuplan/gpuplan.h - umbrella header of libgpuplan. */
#ifndef GPUPLAN_GPUPLAN_H
#define GPUPLAN_GPUPLAN_H

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cluster.h"
#include "gpuplan/cost.h"
#include "gpuplan/csv.h"
#include "gpuplan/defaults.h"
#include "gpuplan/error.h"
#include "gpuplan/export.h"
#include "gpuplan/infer.h"
#include "gpuplan/io.h"
#include "gpuplan/names.h"
#include "gpuplan/opts.h"
#include "gpuplan/plan.h"
#include "gpuplan/policy.h"
#include "gpuplan/price.h"
#include "gpuplan/report.h"
#include "gpuplan/serve.h"
#include "gpuplan/sim.h"
#include "gpuplan/spec.h"
#include "gpuplan/trace.h"
#include "gpuplan/train.h"
#include "gpuplan/train_spec.h"
#include "gpuplan/units.h"
#include "gpuplan/validate.h"
#include "gpuplan/version.h"

#endif
