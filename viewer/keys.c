// SPDX-License-Identifier: GPL-2.0
/* keys.c - the viewer's key table (see keys.h). */

#include <curses.h>

#include "keys.h"

#define CTRL(c) ((c)&0x1f)

const struct key keys[] = {
	{ 'q', "q", ACT_QUIT, "quit" },
	{ '?', "?", ACT_HELP, "this help (any key closes it)" },
	{ '+', "+", ACT_ZOOM_IN, "zoom in around the cursor" },
	{ '=', "=", ACT_ZOOM_IN, NULL },
	{ 'w', "w", ACT_ZOOM_IN, NULL },
	{ '-', "-", ACT_ZOOM_OUT, "zoom out around the cursor" },
	{ 's', "s", ACT_ZOOM_OUT, NULL },
	{ 'a', "a", ACT_PAN_LEFT, "pan earlier by an eighth of the screen" },
	{ 'h', "h", ACT_PAN_LEFT, NULL },
	{ KEY_LEFT, "Left", ACT_PAN_LEFT, NULL },
	{ 'd', "d", ACT_PAN_RIGHT, "pan later by an eighth of the screen" },
	{ 'l', "l", ACT_PAN_RIGHT, NULL },
	{ KEY_RIGHT, "Right", ACT_PAN_RIGHT, NULL },
	{ ',', ",", ACT_CURSOR_LEFT, "cursor one column earlier" },
	{ '.', ".", ACT_CURSOR_RIGHT, "cursor one column later" },
	{ '<', "<", ACT_CURSOR_LEFT_FAST, "cursor ten columns earlier" },
	{ '>', ">", ACT_CURSOR_RIGHT_FAST, "cursor ten columns later" },
	{ '0', "0", ACT_FIT, "fit the whole trace" },
	{ 'f', "f", ACT_FIT, NULL },
	{ 'z', "z", ACT_ZOOM_METER, "zoom to the metering window A..B" },
	{ 'g', "g", ACT_START, "cursor to the start" },
	{ KEY_HOME, "Home", ACT_START, NULL },
	{ 'G', "G", ACT_END, "cursor to the end" },
	{ KEY_END, "End", ACT_END, NULL },
	{ 'k', "k", ACT_UP, "select the row above" },
	{ KEY_UP, "Up", ACT_UP, NULL },
	{ 'j', "j", ACT_DOWN, "select the row below" },
	{ KEY_DOWN, "Down", ACT_DOWN, NULL },
	{ KEY_PPAGE, "PgUp", ACT_PAGE_UP, "a page of rows up" },
	{ CTRL('b'), "^B", ACT_PAGE_UP, NULL },
	{ KEY_NPAGE, "PgDn", ACT_PAGE_DOWN, "a page of rows down" },
	{ CTRL('f'), "^F", ACT_PAGE_DOWN, NULL },
	{ 'A', "A", ACT_METER_A, "metering line A at the cursor" },
	{ 'B', "B", ACT_METER_B, "metering line B at the cursor" },
	{ 'x', "x", ACT_METER_CLEAR, "clear the metering lines" },
	{ 'm', "m", ACT_METER_PANE,
	  "per-state times of every thread between A and B" },
	{ 'e', "e", ACT_EVENTS,
	  "events of the selected thread, or CPU, around the cursor" },
	{ 'i', "i", ACT_NOISE,
	  "who took time from the selected thread, A..B or on screen" },
	{ 'W', "W", ACT_WAKER,
	  "follow the waker: the thread and instant that woke this one" },
	{ 'b', "b", ACT_BACK, "back to where W came from" },
	{ KEY_BACKSPACE, "BkSp", ACT_BACK, NULL },
	{ 'P', "P", ACT_PATH,
	  "critical path: what the thread waited for, back from the cursor" },
	{ 'n', "n", ACT_NEXT_SWITCH, "next switch of the selected thread" },
	{ 'N', "N", ACT_PREV_SWITCH, "previous switch of the selected thread" },
	{ 'L', "L", ACT_NEXT_LOST, "next LOST gap (UNKNOWN), any thread" },
	{ 'M', "M", ACT_NEXT_MARK, "next mark (monitor_mark)" },
	{ ']', "]", ACT_NEXT_FLUTTER,
	  "next flutter (* in its row), any thread" },
	{ 'T', "T", ACT_NEXT_LONG,
	  "next interval of the selected thread longer than..." },
	{ '/', "/", ACT_SEARCH, "find a thread by name or tid" },
	{ 'H', "H", ACT_HIDE, "hide the selected row" },
	{ 'U', "U", ACT_SHOW_ALL, "show every hidden row" },
	{ 'c', "c", ACT_COLLAPSE,
	  "collapse: hide the threads idle in the window on screen" },
	{ 'o', "o", ACT_SORT,
	  "sort: first seen, name, tid, run, run queue, process" },
	{ '\t', "Tab", ACT_CPUS,
	  "CPUs view: a letter a thread (the detail line names it)" },
	{ ' ', "Space", ACT_FOLD,
	  "merged trace: fold or unfold the selected row's node" },
	{ 'F', "F", ACT_FOLLOW, "live: follow the newest time (as less +F)" },
	{ 'K', "K", ACT_COMPENSATED,
	  "raw or compensated times (the monitor's cost taken out), wide bounds marked" },
	{ CTRL('l'), "^L", ACT_REDRAW, "redraw the screen" },
};

const size_t nr_keys = sizeof(keys) / sizeof(keys[0]);

enum action key_action(int code)
{
	size_t i;

	for (i = 0; i < nr_keys; i++)
		if (keys[i].code == code)
			return keys[i].action;
	return ACT_NONE;
}
