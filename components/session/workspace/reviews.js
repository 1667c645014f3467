/* The selected step's reviews in the inspector: a "Review" button (trigger "review" = the step's
 * IRI: the page opens its review dialog) and the step's reviews as the server sent them
 * (``reviews``: step IRI -> [{label, score, comment, by, at}]), each reviewer's own line, so that
 * where reviewers disagree both are shown. Review text is untrusted: written with textContent. */
function renderStepReviews(box, ws, s) {
  if (!ws.reviewing) { return; }
  const mine = (ws.reviews && ws.reviews[s.id]) || [];
  const part = el("div", "te-ins-reviews");
  part.setAttribute("data-reviews", String(mine.length));
  const button = el("button", "te-ins-review", mine.length ? "Review (" + mine.length + ")" : "Review");
  button.type = "button";
  button.title = "Label this step (correct, incorrect, wrong-tool…), with a score and a comment";
  button.addEventListener("click", (event) => { event.stopPropagation(); ws.trigger("review", s.id); });
  part.appendChild(button);
  const labels = new Set(mine.map((r) => r.label));
  if (labels.size > 1) { part.appendChild(el("span", "te-ins-disagree", "reviewers disagree")); }
  mine.forEach((r) => {
    const line = el("span", "te-ins-review-line");
    line.appendChild(el("span", "te-ins-review-label te-label-" + String(r.label).replace(/[^a-z0-9-]/gi, ""), r.label));
    const rest = [r.score !== null && r.score !== undefined ? "score " + r.score : "", r.by].filter((x) => x).join(" · ");
    line.appendChild(el("span", "te-ins-review-by", rest));
    if (r.comment) { line.appendChild(el("span", "te-ins-review-comment", clipped(r.comment, CLIP.line))); }
    line.title = (r.comment || "") + (r.at ? "\n" + r.at : "");
    part.appendChild(line);
  });
  box.appendChild(part);
}
