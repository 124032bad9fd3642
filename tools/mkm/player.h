/* SPDX-License-Identifier: GPL-2.0 */
/*
 * player.h - a trace played back compensated, as PIE replayed its traces:
 * "file source -> order -> compensation -> pacing -> the caller's sink",
 * the pacing stage handing each record on when its (compensated) time
 * comes, at real or scaled speed. mkm replay --play prints what it hands
 * on; mkm view --play shows it.
 */
#ifndef MKM_PLAYER_H
#define MKM_PLAYER_H

#include <stdbool.h>

#include "libmonitor.h"
#include "mon_pipeline.h"

struct player;

/*
 * The pipeline playing @path compensated with the trace's calibration (or
 * @cal_file's) into @sink, @speed times real time (0: no waiting). Dies
 * with a clear message, as calibration_for() does (@force as there).
 * Destroy the pipeline, then the player.
 */
struct mon_pipeline *player_open(struct player **plp, const char *path,
				 const char *cal_file, bool force, double speed,
				 struct mon_sink *sink);
/* Ends the play at the next record (from another thread). */
void player_stop(struct player *pl);
void player_destroy(struct player *pl);

#endif /* MKM_PLAYER_H */
