package ryo

// Hit is a stored message a search of a conversation's past found: the
// message, with its sender, and the part of its text around what matched.
type Hit struct {
	Message Message
	Excerpt string
}
