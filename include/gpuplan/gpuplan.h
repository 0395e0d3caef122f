/* gpuplan/gpuplan.h - umbrella header of libgpuplan. */
#ifndef GPUPLAN_GPUPLAN_H
#define GPUPLAN_GPUPLAN_H

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cluster.h"
#include "gpuplan/csv.h"
#include "gpuplan/error.h"
#include "gpuplan/export.h"
#include "gpuplan/spec.h"
#include "gpuplan/units.h"
#include "gpuplan/version.h"

#endif
