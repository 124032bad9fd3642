// SPDX-License-Identifier: GPL-2.0
/* viewer.c - the viewer's loop: a key to an action, an action to the state
 * (actions.c), the state painted (draw.c); the prompts and the mouse. */

#define _XOPEN_SOURCE_EXTENDED
#include <curses.h>
#include <langinfo.h>
#include <stdio.h>
#include <string.h>

#include "viewer.h"

int viewer_open(struct viewer *w, const char *file, struct tl *tl,
		const struct mon_meta *meta)
{
	memset(w, 0, sizeof(*w));
	return state_open(&w->vs, file, tl, meta);
}

void viewer_close(struct viewer *w)
{
	state_close(&w->vs);
}

static void mouse(struct viewer_state *vs)
{
	struct view *v = &vs->view;
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED) {
		view_zoom(v, 1, 2);
	} else if (ev.bstate & BUTTON5_PRESSED) {
		view_zoom(v, 2, 1);
	} else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) {
		int col;
		int64_t row;

		draw_locate(vs, ev.y, ev.x, &col, &row);
		if (col >= 0)
			view_set_cursor(v, view_col_time(v, (unsigned int)col));
		if (row >= 0)
			view_select(v, row - (int64_t)v->sel);
	}
}

/* The actions only a terminal has; the others go to the state. */
static void act_here(struct viewer *w, enum action a)
{
	struct viewer_state *vs = &w->vs;
	const char *prompt = act_prompt(vs, a);
	char text[sizeof(vs->search)] = "";

	if (a == ACT_QUIT)
		w->quit = true;
	else if (a == ACT_HELP)
		w->help = true;
	else if (a == ACT_COMPENSATED && w->toggle)
		w->toggle(vs, w->toggle_arg);
	else if (a == ACT_COMPENSATED)
		snprintf(vs->message, sizeof(vs->message),
			 "live: no compensated view (mkm replay the trace)");
	if (prompt && !draw_prompt(prompt, text, sizeof(text)))
		text[0] = 0; /* cancelled */
	act(vs, a, text);
}

void viewer_frame(struct viewer *w)
{
	unsigned int cols, page;

	state_noise_update(&w->vs);
	late_update(&w->vs);
	if (draw_size(&w->vs, &cols, &page))
		view_set_size(&w->vs.view, cols, page);
	draw(w);
}

int viewer_run(struct viewer *w)
{
	const char *cs;

	cs = nl_langinfo(CODESET);
	w->utf8 = !w->ascii_only && cs && !strcmp(cs, "UTF-8");
	if (draw_init(w))
		return -1;
	if (w->tick)
		timeout(100);
	while (!w->quit) {
		int ch;

		if (w->tick)
			w->tick(&w->vs, w->tick_arg);
		viewer_frame(w);
		ch = getch();
		if (ch == ERR && w->tick)
			continue; /* no key: the next tick */
		w->vs.message[0] = 0;
		if (ch == ERR)
			break;
		if (w->help) {
			w->help = false;
			continue;
		}
		if (ch == KEY_RESIZE)
			continue;
		if (ch == KEY_MOUSE) {
			mouse(&w->vs);
			continue;
		}
		act_here(w, key_action(ch));
	}
	draw_end();
	return 0;
}
