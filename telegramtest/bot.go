package telegramtest

// botUser fills in the bot's own user from the options.
func botUser(opts Options) User {
	u := opts.Bot
	u.IsBot = true
	if u.ID == 0 {
		u.ID = tokenID(opts.Token)
	}
	if u.FirstName == "" {
		u.FirstName = "Test Bot"
	}
	if u.Username == "" {
		u.Username = "test_bot"
	}
	return u
}

type wireBot struct {
	ID                      int64  `json:"id"`
	IsBot                   bool   `json:"is_bot"`
	FirstName               string `json:"first_name"`
	LastName                string `json:"last_name,omitempty"`
	Username                string `json:"username"`
	CanJoinGroups           bool   `json:"can_join_groups"`
	CanReadAllGroupMessages bool   `json:"can_read_all_group_messages"`
	SupportsInlineQueries   bool   `json:"supports_inline_queries"`
	CanConnectToBusiness    bool   `json:"can_connect_to_business"`
	HasMainWebApp           bool   `json:"has_main_web_app"`
}

func (s *Server) getMe(*request) (any, error) {
	u := s.opts.Bot
	return wireBot{
		ID: u.ID, IsBot: true, FirstName: u.FirstName, LastName: u.LastName, Username: u.Username,
		CanJoinGroups: true, CanReadAllGroupMessages: s.opts.CanReadAllGroupMessages,
	}, nil
}
