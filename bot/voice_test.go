package bot

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/stt"
)

// Every way a recording can fail to be heard has one sentence, which
// says what the person can do, and names no address or key.
func TestNotHeardSentences(t *testing.T) {
	limits := stt.Limits{MaxDuration: 5 * time.Minute}
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"too long", limits.Check(12*time.Minute, 1000), []string{"too long", "12m", "5m", "shorter"}},
		{"too large", limits.Check(time.Minute, 30<<20), []string{"too large"}},
		{"too large at Telegram", fmt.Errorf("download: %w", delivery.ErrFileTooBig), []string{"too large"}},
		{"unavailable", &stt.Error{Kind: stt.ErrUnavailable, Detail: "connection refused"}, []string{"not answering", "try again later", "kept"}},
		{"timeout", &stt.Error{Kind: stt.ErrTimeout}, []string{"took too long", "try again later"}},
		{"rate limited", &stt.Error{Kind: stt.ErrRateLimited, Status: 429, RetryAfter: 20 * time.Second}, []string{"slow down", "20 seconds"}},
		{"rate limited, no wait said", &stt.Error{Kind: stt.ErrRateLimited, Status: 429}, []string{"slow down", "a minute"}},
		{"unsupported", &stt.Error{Kind: stt.ErrUnsupported, Status: 400}, []string{"kind of audio"}},
		{"refused", &stt.Error{Kind: stt.ErrRefused, Status: 401}, []string{"admin", "RYO_STT_URL", "RYO_STT_API_KEY"}},
		{"bad answer", &stt.Error{Kind: stt.ErrBadAnswer}, []string{"could not read", "kept"}},
		{"no speech", &stt.Error{Kind: stt.ErrNoSpeech}, []string{"no speech"}},
		{"Telegram refused the file", errors.New("getFile: bad request, Bad Request: invalid file_id"), []string{"Telegram", "send it again"}},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := notHeard(lang.Printer{}, tt.err)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("notHeard(lang.Printer{}, %v) = %q; want it to say %q", tt.err, got, w)
				}
			}
			if strings.Contains(got, "%") || strings.Contains(got, "http") {
				t.Errorf("notHeard(lang.Printer{}, %v) = %q; want a plain sentence", tt.err, got)
			}
		})
		seen[notHeard(lang.Printer{}, tt.err)] = tt.name
	}
	if len(seen) < 10 {
		t.Errorf("%d distinct sentences; want one per kind of failure", len(seen))
	}
}

func TestNoListenerNamesTheSetting(t *testing.T) {
	want := "I can't listen to voice messages: no transcription server is set up — an admin can name one in RYO_STT_URL. Your message is kept."
	if noListener != want {
		t.Errorf("noListener = %q; want %q", noListener, want)
	}
}

// A voice note, an audio file and a video note are stored as recordings
// with what Telegram says of them; other messages carry none.
func TestRecordingOf(t *testing.T) {
	tests := []struct {
		name string
		m    models.Message
		want ryo.Media
		ok   bool
	}{
		{"voice", models.Message{Voice: &models.Voice{FileID: "AwACAgIAAxkBAAIC", FileUniqueID: "AgADvQ", Duration: 4, MimeType: "audio/ogg", FileSize: 15130}},
			ryo.Media{Kind: ryo.MediaVoice, FileID: "AwACAgIAAxkBAAIC", UniqueID: "AgADvQ", Duration: 4, MimeType: "audio/ogg", Size: 15130}, true},
		{"audio", models.Message{Audio: &models.Audio{FileID: "CQAC", FileUniqueID: "AgAD9w", Duration: 187, FileName: "week3 🎧.mp3", MimeType: "audio/mpeg", FileSize: 3001234, Title: "Week 3"}},
			ryo.Media{Kind: ryo.MediaAudio, FileID: "CQAC", UniqueID: "AgAD9w", Duration: 187, FileName: "week3 🎧.mp3", MimeType: "audio/mpeg", Size: 3001234}, true},
		{"video note", models.Message{VideoNote: &models.VideoNote{FileID: "DQAC", FileUniqueID: "AgAD-w", Duration: 9, Length: 384, FileSize: 412345}},
			ryo.Media{Kind: ryo.MediaVideoNote, FileID: "DQAC", UniqueID: "AgAD-w", Duration: 9, MimeType: "video/mp4", Size: 412345}, true},
		{"text", models.Message{Text: "hello"}, ryo.Media{}, false},
		{"video", models.Message{Video: &models.Video{FileID: "BAAC"}}, ryo.Media{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := recordingOf(&tt.m)
			if got != tt.want || ok != tt.ok {
				t.Errorf("recordingOf = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
			if media := mediaOf(&tt.m); ok && (len(media) != 1 || media[0] != tt.want) {
				t.Errorf("mediaOf = %+v; want the recording", media)
			}
		})
	}
}

// The transcript is the message's text, marked as one, after its caption.
func TestWithTranscript(t *testing.T) {
	voice := ryo.Media{Kind: ryo.MediaVoice, Transcript: "what's the weather in Kraków?"}
	if got, want := withTranscript("", voice), "(voice note, transcribed) what's the weather in Kraków?"; got != want {
		t.Errorf("withTranscript = %q; want %q", got, want)
	}
	audio := ryo.Media{Kind: ryo.MediaAudio, FileName: "week3.mp3", Transcript: "ownership moves"}
	if got, want := withTranscript("summarise this", audio), "summarise this\n\n(audio \"week3.mp3\", transcribed) ownership moves"; got != want {
		t.Errorf("withTranscript = %q; want %q", got, want)
	}
}

// Recordings meant for the bot are answered; not meant for it in a group,
// they are left alone, caption or not.
func TestClassifyRecordings(t *testing.T) {
	b := &Bot{me: ryo.User{ID: 7234567890, Username: "ryo_test_bot"}}
	person := &models.User{ID: 7123456789, FirstName: "Mira"}
	group := models.Chat{ID: -1001234567890, Type: models.ChatTypeSupergroup}
	dm := models.Chat{ID: 7123456789, Type: models.ChatTypePrivate}
	voice := &models.Voice{FileID: "v", Duration: 3}
	tests := []struct {
		name string
		m    models.Message
		want verdict
	}{
		{"voice in private", models.Message{ID: 1, Chat: dm, From: person, Voice: voice}, verdictAnswer},
		{"video note in private", models.Message{ID: 2, Chat: dm, From: person, VideoNote: &models.VideoNote{FileID: "n"}}, verdictAnswer},
		{"voice replying to the bot", models.Message{ID: 3, Chat: group, From: person, Voice: voice,
			ReplyToMessage: &models.Message{ID: 2, From: &models.User{ID: 7234567890, IsBot: true}}}, verdictAnswer},
		{"audio whose caption mentions the bot", models.Message{ID: 4, Chat: group, From: person, Audio: &models.Audio{FileID: "a"},
			Caption: "@ryo_test_bot listen", CaptionEntities: []models.MessageEntity{{Type: models.MessageEntityTypeMention, Offset: 0, Length: 13}}}, verdictAnswer},
		{"voice in a group", models.Message{ID: 5, Chat: group, From: person, Voice: voice}, verdictIgnore},
		{"voice with a caption in a group", models.Message{ID: 6, Chat: group, From: person, Voice: voice, Caption: "listen to this"}, verdictIgnore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := b.classifyMessage(&tt.m); r.what != tt.want {
				t.Errorf("verdict = %v (%s); want %v", r.what, r.why, tt.want)
			}
		})
	}
}

// Recordings that are not for the bot, or not new: an edited voice note is
// never heard again, one replying to another person in a group or sent by
// another bot is not heard at all; one forwarded into a private chat is the
// person's to ask about.
func TestClassifyRecordingsNotForTheBot(t *testing.T) {
	b := &Bot{me: ryo.User{ID: 7234567890, Username: "ryo_test_bot"}}
	person := &models.User{ID: 7123456789, FirstName: "Mira"}
	other := &models.User{ID: 7987654321, FirstName: "Noor"}
	group := models.Chat{ID: -1001234567890, Type: models.ChatTypeSupergroup}
	dm := models.Chat{ID: 7123456789, Type: models.ChatTypePrivate}
	voice := &models.Voice{FileID: "v", Duration: 3, MimeType: "audio/ogg"}
	for _, tc := range []struct {
		name string
		upd  models.Update
		want verdict
	}{
		{"an edited voice note", models.Update{EditedMessage: &models.Message{ID: 1, Chat: dm, From: person, Voice: voice, Caption: "now with a caption"}}, verdictIgnore},
		{"a voice replying to another person", models.Update{Message: &models.Message{ID: 2, Chat: group, From: person, Voice: voice,
			ReplyToMessage: &models.Message{ID: 1, Chat: group, From: other, Text: "who has the stems?"}}}, verdictIgnore},
		{"a voice from another bot", models.Update{Message: &models.Message{ID: 3, Chat: dm, From: &models.User{ID: 7111111111, IsBot: true, FirstName: "Echo"}, Voice: voice}}, verdictIgnore},
		{"a voice forwarded from someone else", models.Update{Message: &models.Message{ID: 4, Chat: dm, From: person, Voice: voice,
			ForwardOrigin: &models.MessageOrigin{Type: models.MessageOriginTypeUser, MessageOriginUser: &models.MessageOriginUser{Type: models.MessageOriginTypeUser, Date: 1, SenderUser: *other}}}}, verdictAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := b.classify(&tc.upd); r.what != tc.want && !(tc.want == verdictIgnore && r.what == verdictKeep) {
				t.Errorf("verdict = %v (%s); want %v", r.what, r.why, tc.want)
			}
		})
	}
}
