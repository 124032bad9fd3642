/* SPDX-License-Identifier: GPL-2.0 */
/*
 * keys.h - the viewer's one table of keys: the loop looks actions up in
 * it, and the help screen prints it, so the two cannot disagree. Keys
 * follow less/vi and Perfetto habits.
 */
#ifndef MKM_KEYS_H
#define MKM_KEYS_H

#include <stddef.h>

enum action {
	ACT_NONE,
	ACT_QUIT,
	ACT_HELP,
	ACT_ZOOM_IN,
	ACT_ZOOM_OUT,
	ACT_PAN_LEFT,
	ACT_PAN_RIGHT,
	ACT_CURSOR_LEFT,
	ACT_CURSOR_RIGHT,
	ACT_CURSOR_LEFT_FAST,
	ACT_CURSOR_RIGHT_FAST,
	ACT_FIT,
	ACT_ZOOM_METER,
	ACT_START,
	ACT_END,
	ACT_UP,
	ACT_DOWN,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_METER_A,
	ACT_METER_B,
	ACT_METER_CLEAR,
	ACT_METER_PANE,
	ACT_NEXT_SWITCH,
	ACT_PREV_SWITCH,
	ACT_NEXT_LOST,
	ACT_NEXT_MARK,
	ACT_NEXT_FLUTTER,
	ACT_NEXT_LONG,
	ACT_SEARCH,
	ACT_HIDE,
	ACT_SHOW_ALL,
	ACT_COLLAPSE,
	ACT_SORT,
	ACT_CPUS,
	ACT_FOLLOW,
	ACT_COMPENSATED,
	ACT_EVENTS,
	ACT_NOISE,
	ACT_WAKER,
	ACT_BACK,
	ACT_PATH,
	ACT_FOLD,
	ACT_REDRAW,
};

struct key {
	int code; /* a character, or an ncurses KEY_* code */
	const char *name; /* as the help shows it */
	enum action action;
	const char *help; /* NULL: shown on the line of the key before */
};

extern const struct key keys[];
extern const size_t nr_keys;

/* The action of key @code, ACT_NONE if unbound. */
enum action key_action(int code);

#endif /* MKM_KEYS_H */
