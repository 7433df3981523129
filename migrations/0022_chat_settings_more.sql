-- The rest of what /settings sets for one chat, each null while the chat
-- follows the default:
--   persona     a bounded addition to the system prompt, in the chat's words
--   temperature the model's sampling temperature, 0 to 2
--   language    the language of the bot's own messages ("en", "ru", …)
--   answer_mode in groups, what the bot answers: 'mention' (a mention or a
--               reply to it, the default), 'every' (every message), 'off'
--               (commands only)
alter table chat_settings
    add column persona     text,
    add column temperature real check (temperature between 0 and 2),
    add column language    text,
    add column answer_mode text check (answer_mode in ('mention', 'every', 'off'));
