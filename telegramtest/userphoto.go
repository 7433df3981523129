package telegramtest

import "fmt"

// InAlbum puts the message in the album id (media_group_id), as Telegram
// sends each photo of an album as its own message.
func InAlbum(id string) SendOption {
	return func(o *sendOptions) { o.album = id }
}

// SendPhoto has user from send a picture to chat as a photo, with caption
// as its caption (it may be empty), as a Telegram client would: the
// message carries Telegram's array of photo sizes, smallest first, each
// with a file_id getFile knows, and its caption's bot commands and mentions
// are detected as caption_entities. Every size downloads as data: the
// fake scales nothing. Options are SendText's, and InAlbum. It panics on
// data that is no picture Telegram reads, since that is a mistake in the
// test; data past 20 MB is sent, and getFile refuses it as Telegram does.
func (s *Server) SendPhoto(chat Chat, from User, data []byte, caption string, opts ...SendOption) Message {
	p, err := readPhoto(upload{name: "photo.jpg", mimeType: "image/jpeg", data: data})
	if err != nil {
		panic(fmt.Sprintf("telegramtest: SendPhoto: %v", err))
	}
	return s.sendAs("SendPhoto", chat, Message{From: from, Text: caption, Photo: p}, opts)
}

// keepPhoto makes every size of a photo downloadable.
func (s *Server) keepPhoto(c *chatLog, m *stored) {
	for _, w := range photoSizes(c.chat.ID, m.ID, m.Photo) {
		if s.files[w.FileID] == nil {
			s.files[w.FileID] = &servedFile{id: w.FileID, unique: w.FileUniqueID, name: "photo.jpg", data: m.Photo.Data}
		}
	}
}
