package lang

// english is the English messages: the formats are English already, so
// only the singular of the counted ones is written here.
func english() Messages {
	return Messages{Plurals: map[string]Plural{}}
}
