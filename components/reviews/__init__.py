"""Reviews in the app (issue 42): the review dialog (``dialog``) opened beside each thing a
person can review on the session page (``on_page``, ``targets``), the session's Reviews panel
(``panel``), the session list's Review column and filters (``list_filter``), the review queue
(``queue``) and the Insights charts (``insights``), all on the review store the command line
uses (``access``; ``trace_explorer.reviews``). docs/reviews-app.md describes them for a user."""
