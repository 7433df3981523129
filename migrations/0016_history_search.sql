-- history_search finds a conversation's past by its words: people's
-- messages and the bot's answers, never tool results or notes for the
-- model. The 'simple' configuration neither stems nor drops stop words,
-- so it serves every language alike.
create index messages_words_idx on messages using gin (to_tsvector('simple', text))
    where kind in ('user', 'assistant');
