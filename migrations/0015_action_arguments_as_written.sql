-- A held call's arguments are kept as the model wrote them: jsonb orders
-- an object's keys by length, respaces it and rewrites numbers (1.50e2
-- becomes 150), so a confirmed API call sent another body than the one
-- the person was shown. json keeps the text, and still checks it is JSON.
alter table actions alter column arguments type json using arguments::json;
