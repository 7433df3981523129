package ollamatest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/ollama/ollama/api"

	"github.com/ryo-bot/ryo/ollamatest"
)

func Example() {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	srv.Enqueue(
		ollamatest.Reply{Content: "Hello! How can I help?"},
		ollamatest.Reply{Status: http.StatusInternalServerError, Error: "out of memory"},
	)

	u, _ := url.Parse(srv.URL())
	client := api.NewClient(u, http.DefaultClient)
	req := &api.ChatRequest{
		Model:    "llama3.2",
		Messages: []api.Message{{Role: "user", Content: "hi"}},
	}
	var answer string
	err := client.Chat(context.Background(), req, func(r api.ChatResponse) error {
		answer += r.Message.Content
		return nil
	})
	fmt.Printf("%q %v\n", answer, err)

	err = client.Chat(context.Background(), req, func(api.ChatResponse) error { return nil })
	var se api.StatusError
	fmt.Println(errors.As(err, &se), se.StatusCode, se.ErrorMessage)

	fmt.Println(len(srv.Requests()), srv.Requests()[0].Messages[0].Content)
	// Output:
	// "Hello! How can I help?" <nil>
	// true 500 out of memory
	// 2 hi
}
