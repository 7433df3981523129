// Package stt turns voice notes, audio files and video notes into text
// through a speech-to-text server the owner runs, so that the bot can
// answer them like text.
//
// One API shape covers the servers people run. OpenAI's
// /v1/audio/transcriptions takes a multipart form — a file part whose
// name's extension says the kind of audio, model, response_format (json,
// text, srt, verbose_json, vtt), language (ISO-639-1), temperature — and
// answers {"text"} for json, and {"task","language","duration","text",
// "segments"} for verbose_json, where language is a name such as
// "english"; its errors are {"error":{"message"}}. faster-whisper-server
// (now speaches) serves the same path and form and wants model to name a
// model it has; its errors are FastAPI's {"detail"}. LocalAI serves the
// same path and form. whisper.cpp's server serves /inference with the same
// form fields (file, response_format, language, temperature), ignores
// model, answers verbose_json in the same shape, and reports errors as
// {"error":"…"} — once with HTTP 200; it reads only WAV unless started
// with --convert, which hands other formats to ffmpeg, and its
// --inference-path can move it to /v1/audio/transcriptions.
//
// The Client asks for verbose_json, for the language and the duration,
// and asks again for json when a server refuses verbose_json (OpenAI's
// newer models do). A recording goes as "audio.<ext>" by its name or its
// content type, or by its first bytes when it has neither — a voice note
// as audio.ogg, a video note as audio.mp4 —
// never under the person's own file name. Limits refuse a recording that
// is too long or too large before anything is downloaded, from what
// Telegram says of it; the answer is read up to 4 MB; one recording has a
// deadline. A redirect is followed only on the server RYO_STT_URL names:
// a recording goes nowhere else.
//
// Every failure is an *Error wrapping one sentinel — ErrUnavailable,
// ErrTimeout, ErrRateLimited (with RetryAfter), ErrUnsupported,
// ErrRefused, ErrBadAnswer, ErrNoSpeech, ErrTooLong, ErrTooLarge — so the
// bot can say in one sentence what went wrong and what to do. Its Detail
// never holds the key or the server's address; a message the server
// echoes is scrubbed of both.
//
// A transcript is cleaned before anyone sees it: bytes that are not UTF-8,
// characters that hide or reorder text, and Whisper's annotations of sound
// that is not speech ([BLANK_AUDIO], (silence), [Music]) are taken out;
// white space becomes one space; it is cut at MaxText characters. What is
// left without a letter or a digit is no speech. Doing is the status line
// that quotes it.
package stt
