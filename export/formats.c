// SPDX-License-Identifier: GPL-2.0
/* formats.c - the formats mkm export writes, by name. */
#include <string.h>

#include "export.h"

const struct export_format export_formats[] = {
	{ "perfetto", "Perfetto protobuf trace (ui.perfetto.dev)",
	  ".perfetto-trace", export_perfetto },
	{ "ctf", "CTF 1.8 folder, LTTng kernel layout (Trace Compass)", ".ctf",
	  export_ctf },
	{ "paraver", "Paraver .prv, .pcf and .row (BSC's Paraver)", ".prv",
	  export_paraver },
#ifndef MKM_NO_OTF2
	{ "otf2", "OTF2 archive folder (Vampir, Score-P tools)", ".otf2",
	  export_otf2 },
#endif
	{ 0 }
};

const struct export_format *export_format_find(const char *name)
{
	const struct export_format *f;

	for (f = export_formats; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}
