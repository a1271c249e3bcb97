// Package wire holds the records of the REST API: every answer and every
// request body, as the handlers write them and as clients (the dashboard,
// the end-to-end tests) decode them. It has no logic beyond encoding, so a
// reader finds the whole contract of a route in one place and a change to
// an answer is one change for the server and its clients alike.
//
// One naming scheme:
//
//   - an answer is named for what it is (Project, Overview, BudgetState);
//   - an answer that wraps a list is <Item>List (ProjectList, MemberList);
//   - an item of a report or of an answer that is a bare array is <Thing>Row
//     (AgentRow, TraceRow);
//   - a request body is <Action>Request (LoginRequest, BudgetRequest);
//   - query parameters are <Thing>Query (ReportQuery).
//
// Every amount of money an answer carries is Money: exact nano-USD that
// encodes as a JSON number of USD. Prices per 1000 tokens, and the figures
// of a breach (a count or an amount, by kind), stay json.Number written
// exactly from their integers; a request's amounts also stay json.Number,
// so the handler can name the field of a malformed one. Percentages are
// 0–100 with two decimals; averages and rates over nothing are null (a nil
// pointer), sums over nothing 0.
package wire
