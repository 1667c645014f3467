/* The selected step's reviews in the inspector: a "Review" button (trigger "review" = the step's
 * IRI: the page opens its review dialog) and the step's reviews as the server sent them
 * (``reviews``: step IRI -> [{label, score, comment, by, at, quote}]), each reviewer's own line,
 * so that where reviewers disagree on the whole step both are shown; a review of words of the
 * step's text (``quote``) shows them. Review text is untrusted: written with textContent. */
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
  const labels = new Set(mine.filter((r) => !r.quote).map((r) => r.label));
  if (labels.size > 1) { part.appendChild(el("span", "te-ins-disagree", "reviewers disagree")); }
  mine.forEach((r) => {
    const line = el("span", "te-ins-review-line");
    line.appendChild(el("span", "te-ins-review-label te-label-" + String(r.label).replace(/[^a-z0-9-]/gi, ""), r.label));
    const rest = [r.score !== null && r.score !== undefined ? "score " + r.score : "", r.by].filter((x) => x).join(" · ");
    line.appendChild(el("span", "te-ins-review-by", rest));
    if (r.quote) { line.appendChild(el("span", "te-ins-review-quote", "“" + clipped(r.quote, CLIP.line) + "”")); }
    if (r.comment) { line.appendChild(el("span", "te-ins-review-comment", clipped(r.comment, CLIP.line))); }
    line.title = (r.comment || "") + (r.at ? "\n" + r.at : "");
    part.appendChild(line);
  });
  box.appendChild(part);
}

/* Words selected inside one of the step's texts (an element ``supportMarked`` wrote: it keeps
 * the whole text in ``__teFull`` and how much of it is shown in ``__teShown``) bring up a
 * "Review selection" button; a click sends trigger "review" = {step, iri, field, quote, start, end}
 * (``iri``: the entity the text is of when not the step itself, an Analysis's Thought, else null):
 * the quote and its offsets in code points (as Python counts) in the field's whole text, the
 * page opens the review dialog of that span. Bound once per inspector box. */
function bindSelectionReview(box, ws) {
  if (box.__teSelBound) { return; }
  box.__teSelBound = true;
  const button = el("button", "te-ins-review-span", "Review selection");
  button.type = "button";
  button.title = "Label the selected words (correct, incorrect, unsupported…), with a score and a comment";
  button.hidden = true;
  button.addEventListener("mousedown", (event) => event.preventDefault());  // keep the selection
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    if (button.__teSpan) { ws.trigger("review", button.__teSpan); }
    button.hidden = true;
  });
  const check = () => {
    const span = ws.reviewing ? selectedSpan(box, ws) : null;
    button.__teSpan = span;
    if (!span) { button.hidden = true; return; }
    if (button.parentNode !== box) { box.appendChild(button); }
    const host = box.getBoundingClientRect();
    button.style.left = Math.max(0, span.rect.left - host.left) + "px";
    button.style.top = (span.rect.bottom - host.top + 4) + "px";
    delete span.rect;
    button.hidden = false;
  };
  box.addEventListener("mouseup", (event) => { if (event.target !== button) { setTimeout(check, 0); } });
  box.addEventListener("keyup", () => setTimeout(check, 0));
}

/* The selection, if it lies inside one text of the inspector's step: {step, field, quote, start,
 * end, rect}, its ends clamped to the text shown (never the "…" nor the "Show all" button) and
 * trimmed of white space; null otherwise. */
function selectedSpan(box, ws) {
  const root = box.getRootNode();
  const sel = root.getSelection ? root.getSelection() : document.getSelection();
  if (!sel || sel.isCollapsed || !sel.rangeCount) { return null; }
  const range = sel.getRangeAt(0);
  const holder = (n) => { for (; n && n !== box; n = n.parentNode) { if (n.__teFull !== undefined) { return n; } } return null; };
  const node = holder(range.startContainer);
  if (!node || holder(range.endContainer) !== node) { return null; }
  const full = node.__teFull;
  const shown = Math.min(node.__teShown === undefined ? full.length : node.__teShown, full.length);
  const offset = (container, at) => {
    const before = document.createRange();
    before.selectNodeContents(node);
    before.setEnd(container, at);
    const more = node.querySelector(".te-clip-more");
    return more && before.intersectsNode(more) ? shown : Math.min(before.toString().length, shown);
  };
  let a = offset(range.startContainer, range.startOffset), b = offset(range.endContainer, range.endOffset);
  while (a < b && /\s/.test(full.charAt(a))) { a += 1; }
  while (b > a && /\s/.test(full.charAt(b - 1))) { b -= 1; }
  if (/[\uDC00-\uDFFF]/.test(full.charAt(a))) { a -= 1; }  // never half a surrogate pair
  if (/[\uD800-\uDBFF]/.test(full.charAt(b - 1))) { b += 1; }
  if (a >= b) { return null; }
  const part = node.closest(".te-ins-part");
  const caption = part && part.querySelector(".te-ins-caption");
  const step = box.getAttribute("data-step");
  if (!step) { return null; }
  const points = (text) => Array.from(text).length;
  return {step: step, iri: (part && part.getAttribute("data-iri")) || null, field: caption ? caption.textContent : "Text",
    quote: full.slice(a, b), start: points(full.slice(0, a)), end: points(full.slice(0, b)),
    rect: range.getBoundingClientRect()};
}
