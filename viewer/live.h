/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live.h - the live viewer's feed: a sink on the recording's pipeline
 * that hands each batch of records to the viewer's thread through a
 * liburcu wait-free queue. The recording's thread never waits for the
 * viewer and takes no lock; the viewer feeds its timeline between frames.
 */
#ifndef MKM_LIVE_H
#define MKM_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "libmonitor.h"
#include "mon_pipeline.h"

struct live_feed;

/* A feed and its sink (for the pipeline, which owns the sink; the feed
 * must outlive the pipeline). */
int live_feed_create(struct live_feed **feedp, struct mon_sink **sinkp);
void live_feed_destroy(struct live_feed *feed);

/* Feeds @tl with what was queued; true once the stream ended (@tl then
 * flushed). @records: how many records were fed. */
bool live_feed_apply(struct live_feed *feed, struct tl *tl, size_t *records);

#endif /* MKM_LIVE_H */
