package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ryo-bot/ryo/memory"
)

// deadLetter lists the updates ryo could not handle (`ryo deadletter`), or
// gives them another chance (`ryo deadletter retry <update id>|all`). A
// running ryo picks revived updates up within half a minute; a stopped one
// at its next start.
func deadLetter(ctx context.Context, cfg Config, log *slog.Logger, args []string, out io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	db, err := openDB(ctx, cfg, log)
	if err != nil {
		log.Error("cannot open the database", "err", err)
		return exitFailed
	}
	defer db.Close()
	switch {
	case len(args) == 0:
		return listDead(ctx, db, out)
	case args[0] == "retry" && len(args) == 2:
		return retryDead(ctx, db, args[1], out)
	}
	fmt.Fprintln(out, "usage: ryo deadletter [retry <update id>|all]")
	return exitConfig
}

func listDead(ctx context.Context, db *memory.DB, out io.Writer) int {
	letters, total, err := db.DeadLetters(ctx, 0, 1000)
	if err != nil {
		fmt.Fprintln(out, "ryo:", err)
		return exitFailed
	}
	fmt.Fprintf(out, "%d update(s) in the dead letter\n", total)
	for _, d := range letters {
		fmt.Fprintf(out, "%d\t%s\tchat %d\t%s\t%s after %d attempt(s), %d retry(ies): %s\n\t%s\n",
			d.UpdateID, d.Kind, d.ChatID, d.DiedAt.UTC().Format(time.RFC3339), d.Stage, d.Attempts, d.Retries,
			strings.ReplaceAll(d.Error, "\n", " "), d.Raw)
	}
	return exitOK
}

func retryDead(ctx context.Context, db *memory.DB, which string, out io.Writer) int {
	var ids []int64
	if which == "all" {
		letters, _, err := db.DeadLetters(ctx, 0, 1000)
		if err != nil {
			fmt.Fprintln(out, "ryo:", err)
			return exitFailed
		}
		for _, d := range letters {
			ids = append(ids, d.UpdateID)
		}
	} else if id, err := strconv.ParseInt(which, 10, 64); err == nil {
		ids = []int64{id}
	} else {
		fmt.Fprintf(out, "ryo: %q is neither an update id nor all\n", which)
		return exitConfig
	}
	code := exitOK
	for _, id := range ids {
		if _, err := db.Revive(ctx, id); err != nil {
			fmt.Fprintf(out, "%d: %v\n", id, err)
			if !errors.Is(err, memory.ErrNotDead) {
				code = exitFailed
			}
			continue
		}
		fmt.Fprintf(out, "%d: back in the inbox; a running ryo answers it within seconds, a stopped one at its next start\n", id)
	}
	return code
}
