package lang

// english is the English messages: the formats are English already, so
// only the singular of the counted ones is written here.
func english() Messages {
	return Messages{Plurals: map[string]Plural{
		"%d passages": {One: "%d passage"},
		"%d messages": {One: "%d message"},
		"%d memories": {One: "%d memory"},
		"%d requests": {One: "%d request"},
		"%d messages (yours, and all of our private chat)": {One: "%d message (yours, and all of our private chat)"},
		"%d memories of yours":                             {One: "%d memory of yours"},
		"%d memories you added to groups":                  {One: "%d memory you added to groups"},
		"%d requests you made, with their log":             {One: "%d request you made, with its log"},
		"failed after %d attempts":                         {One: "failed after %d attempt"},
		"Running %d updates again.":                        {One: "Running %d update again."},
		"%d bytes":                                         {One: "%d byte"},
		"%d model calls":                                   {One: "%d model call"},
		"%d tool calls":                                    {One: "%d tool call"},
		"%[2]s answers":                                    {One: "%[2]s answer"},
		"%[2]s tokens":                                     {One: "%[2]s token"},
		"%[2]s tokens in":                                  {One: "%[2]s token in"},
		"%[2]s calls":                                      {One: "%[2]s call"},
		"%[2]s tool calls":                                 {One: "%[2]s tool call"},
		"%[2]s people":                                     {One: "%[2]s person"},
		"%d seconds":                                       {One: "%d second"},
		"%d minutes":                                       {One: "%d minute"},
		"up to %d characters":                              {One: "up to %d character"},
		"🏷 Renamed “%s” to “%s” (%d uses).":                {One: "🏷 Renamed “%s” to “%s” (%d use)."},
		"🗑 Deleted the tag “%s” (%d uses).":                {One: "🗑 Deleted the tag “%s” (%d use)."},
		"🧰 %s — %d tools":                                  {One: "🧰 %s — %d tool"},
		"⚡ Your next message here goes to %s — within %d minutes. /use off changes your mind.": {
			One: "⚡ Your next message here goes to %s — within %d minute. /use off changes your mind."},
		"%[2]s of %[3]s answers a day":   {One: "%[2]s of %[3]s answer a day"},
		"%[2]s of %[3]s answers an hour": {One: "%[2]s of %[3]s answer an hour"},
		"%[2]s of %[3]s tokens a day":    {One: "%[2]s of %[3]s token a day"},
		"%[2]s of %[3]s tokens an hour":  {One: "%[2]s of %[3]s token an hour"},
		"🙏 You've used today's %[2]s answers; you can ask again %[3]s. Your message is kept.": {
			One: "🙏 You've used today's %[2]s answer; you can ask again %[3]s. Your message is kept."},
		"🙏 You've used this hour's %[2]s answers; you can ask again %[3]s. Your message is kept.": {
			One: "🙏 You've used this hour's %[2]s answer; you can ask again %[3]s. Your message is kept."},
	}}
}
