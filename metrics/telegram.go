package metrics

import (
	"time"

	"github.com/ryo-bot/ryo/bot/delivery"
)

// TelegramCalled implements delivery.Observer.
func (m *Metrics) TelegramCalled(method, outcome string, retryAfter time.Duration) {
	method = telegramMethod(method)
	outcome = oneOf(outcome, delivery.OutcomeOK, delivery.OutcomeBadRequest, delivery.OutcomeUnauthorized,
		delivery.OutcomeForbidden, delivery.OutcomeNotFound, delivery.OutcomeConflict, delivery.OutcomeTooManyRequests,
		delivery.OutcomeRefused, delivery.OutcomeServerError, delivery.OutcomeTimeout, delivery.OutcomeNetwork)
	m.telegramCalls.WithLabelValues(method, outcome).Inc()
	if outcome == delivery.OutcomeTooManyRequests {
		m.tooMany.WithLabelValues(method).Inc()
		m.retryAfter.Add(retryAfter.Seconds())
	}
}

// telegramMethod is method when it is one of the Bot API methods counted
// by name, and other for any other.
func telegramMethod(method string) string {
	switch method {
	case "getUpdates", "getMe", "setMyCommands", "deleteWebhook", "setWebhook", "getChatMember", "getFile",
		"sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage", "sendMessageDraft",
		"sendChatAction", "sendPhoto", "sendDocument", "answerCallbackQuery":
		return method
	}
	return other
}
