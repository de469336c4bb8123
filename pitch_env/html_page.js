// Draws the game timeline embedded in this page (pitch_env/html_page.py) and steps through it.
// Every fact shown comes from the embedded data; this script computes nothing about the rules.
"use strict";
(function () {
  const G = JSON.parse(document.getElementById("game-data").textContent);
  const app = document.getElementById("app");
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const SPEEDS = [0.5, 1, 2, 4];
  let at = 0, timer = null, speed = 1, exchangeOpen = false;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function card(name, trumps, small) {
    const c = el("span", "card" + (small ? " small" : ""));
    c.dataset.card = name;
    if (name === "BJ" || name === "LJ") {
      c.classList.add("joker", name === "BJ" ? "red" : "black");
      c.append(el("b", "rank", "★"), el("i", "suit", name === "BJ" ? "BIG" : "LITTLE"));
      c.title = name === "BJ" ? "big joker" : "little joker";
    } else {
      const rank = name[0] === "T" ? "10" : name[0];
      c.classList.add(name[1] === "H" || name[1] === "D" ? "red" : "black");
      c.append(el("b", "rank", rank), el("i", "suit", SUITS[name[1]]));
      c.title = rank + SUITS[name[1]];
    }
    if (trumps && trumps.indexOf(name) >= 0) c.classList.add("trump");
    return c;
  }

  function colour(suit) {
    return suit === "H" || suit === "D" ? "red" : "black";
  }

  function sideName(side) {
    const seats = G.sides[side];
    return seats.length === 1 ? "Seat " + seats[0] : "Side " + side;
  }

  function sideSeats(side) {
    return G.sides[side].map(function (s) {
      const p = G.seats[s].player;
      return "seat " + s + (p ? " " + p : "");
    }).join(" + ");
  }

  // ------------------------------------------------------------ the fixed parts of the page
  const top = el("header", "top");
  if (G.back) {
    const a = el("a", "back", "← all games");
    a.href = G.back;
    top.append(a);
  }
  top.append(el("h1", null, G.title));
  const r = G.rules;
  top.append(el("p", "rules", r.num_players + " players" +
    (r.partnerships ? " in partnerships" : ", each for themselves") + " · first to " + r.target_score +
    " points"));
  const board = el("div", "scoreboard");
  const scoreCells = G.sides.map(function (_, side) {
    const box = el("div", "side s" + side);
    box.dataset.side = side;
    const score = el("strong", "score");
    box.append(el("span", "who", sideName(side)), score, el("span", "seats", sideSeats(side)));
    board.append(box);
    return { box: box, score: score };
  });
  top.append(board);

  const main = el("main", "layout");
  const stage = el("section", "stage");
  const table = el("div", "table n" + r.num_players);
  const trickBox = el("div", "trick");
  table.append(trickBox);
  const seatBoxes = G.seats.map(function (s) {
    const box = el("div", "seat");
    box.dataset.seat = s.seat;
    const angle = Math.PI / 2 + (2 * Math.PI * s.seat) / r.num_players; // seat 0 at the bottom, clockwise
    const rx = r.num_players > 4 ? 36 : 33; // more seats: narrower panels, further out
    box.style.setProperty("--x", (50 + rx * Math.cos(angle)).toFixed(1) + "%");
    box.style.setProperty("--y", (50 + 38 * Math.sin(angle)).toFixed(1) + "%");
    box.style.setProperty("--tx", (50 + 12 * Math.cos(angle)).toFixed(1) + "%");
    box.style.setProperty("--ty", (50 + 18 * Math.sin(angle)).toFixed(1) + "%");
    const head = el("div", "head");
    const name = el("span", "name s" + s.side, "Seat " + s.seat);
    const player = el("span", "player", s.player || "");
    const badges = el("span", "badges");
    head.append(name, player, badges);
    const cards = el("div", "cards");
    box.append(head, cards);
    table.append(box);
    return { box: box, badges: badges, cards: cards, angle: angle };
  });
  const caption = el("p", "caption");
  caption.setAttribute("aria-live", "polite");

  const controls = el("nav", "controls");
  // Drawn icons: the media-control characters are missing from many fonts.
  const ICONS = {
    "prev-hand": "M6 5h2v14H6zM20 5v14L9 12z", back: "M17 5v14L6 12z", play: "M7 5v14l11-7z",
    pause: "M6 5h4v14H6zM14 5h4v14h-4z", step: "M7 5v14l11-7z", "next-hand": "M16 5h2v14h-2zM4 5v14l11-7z",
  };
  function icon(name) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", ICONS[name]);
    path.setAttribute("fill", "currentColor");
    svg.append(path);
    return svg;
  }
  function button(label, title, fn, cls) {
    const b = el("button", cls || null);
    if (ICONS[label]) b.append(icon(label)); else b.textContent = label;
    b.type = "button";
    b.title = title;
    b.setAttribute("aria-label", title);
    b.addEventListener("click", fn);
    controls.append(b);
    return b;
  }
  button("prev-hand", "previous hand (↑)", function () { stop(); go(handStart(-1)); }, "prev-hand");
  button("back", "back one move (←)", function () { stop(); go(at - 1); }, "back");
  const playButton = button("play", "play / pause (space)", toggle, "play");
  button("step", "forward one move (→)", function () { stop(); go(at + 1); }, "step");
  button("next-hand", "next hand (↓)", function () { stop(); go(handStart(1)); }, "next-hand");
  const speedButton = button("1×", "speed", function () {
    speed = SPEEDS[(SPEEDS.indexOf(speed) + 1) % SPEEDS.length];
    speedButton.textContent = speed + "×";
    if (timer) { stop(); toggle(); }
  }, "speed");
  const slider = el("input", "slider");
  slider.type = "range";
  slider.min = 0;
  slider.max = G.frames.length - 1;
  slider.setAttribute("aria-label", "move");
  slider.addEventListener("input", function () { stop(); go(+slider.value); });
  const counter = el("span", "counter");
  const scrub = el("div", "scrub");
  scrub.append(slider, counter);
  stage.append(table, caption, controls, scrub);

  const side = el("aside", "side-panel");
  const handPanel = el("section", "hand-panel");
  const sheetPanel = el("section", "sheet-panel");
  side.append(handPanel, sheetPanel);
  main.append(stage, side);
  const help = el("p", "help", "Keys: ← → one move · space play/pause · ↑ ↓ one hand · Home End");
  app.append(top, main, help);

  // ------------------------------------------------------------ drawing one frame
  function draw() {
    const f = G.frames[at], h = G.hands[f.h];
    f.scores.forEach(function (v, s) { scoreCells[s].score.textContent = v; });
    scoreCells.forEach(function (c, s) { c.box.classList.toggle("winner", f.kind === "over" && G.winner === s); });

    seatBoxes.forEach(function (b, s) {
      b.box.classList.toggle("turn", f.turn === s);
      b.box.classList.toggle("moved", f.seat === s && f.kind !== "deal");
      b.box.classList.toggle("took", f.winner === s);
      b.badges.replaceChildren();
      if (h.dealer === s) b.badges.append(el("span", "badge dealer", "dealer"));
      if (f.bids[s]) b.badges.append(el("span", "badge bid" + (h.pitcher === s && f.kind !== "bid" ? " pitcher" : ""),
        f.bids[s]));
      if (f.won[s]) b.badges.append(el("span", "badge won", f.won[s] + (f.won[s] === 1 ? " trick" : " tricks")));
      const trumps = f.trump ? h.trumps : null;
      b.cards.replaceChildren.apply(b.cards, f.hands[s].map(function (c) { return card(c, trumps); }));
      if (!f.hands[s].length) b.cards.append(el("span", "empty", "no cards"));
    });

    trickBox.replaceChildren();
    f.trick.forEach(function (p) {
      const slot = el("div", "played" + (f.winner === p[0] ? " best" : ""));
      slot.dataset.seat = p[0];
      slot.style.setProperty("--tx", seatBoxes[p[0]].box.style.getPropertyValue("--tx"));
      slot.style.setProperty("--ty", seatBoxes[p[0]].box.style.getPropertyValue("--ty"));
      slot.append(card(p[1], f.trump ? h.trumps : null), el("span", "by", "seat " + p[0] + (p[0] === f.leader ? " · led" : "")));
      trickBox.append(slot);
    });
    if (f.trump) {
      const t = el("div", "trump-mark " + colour(f.trump));
      t.append(el("span", null, "trump"), el("b", null, SUITS[f.trump]));
      trickBox.append(t);
    }
    if (f.kind === "end") {
      const box = el("div", "hand-result");
      box.append(el("b", null, "Hand " + h.number));
      if (h.thrown_in) box.append(el("span", null, "thrown in"));
      else {
        box.append(el("span", h.made ? "made" : "set", "seat " + h.pitcher + (h.made ? " made " : " was set on ") +
          h.contract_text));
        const pts = el("span", "pts");
        h.score_change.forEach(function (v, s) {
          pts.append(el("span", "s" + s, sideName(s) + " " + (v > 0 ? "+" : "") + v));
        });
        box.append(pts);
      }
      trickBox.append(box);
    }
    if (f.kind === "over") trickBox.append(el("div", "outcome", G.outcome));

    caption.textContent = f.text;
    caption.className = "caption " + f.kind;
    counter.textContent = "hand " + h.number + " · " + (at + 1) + " / " + G.frames.length;
    slider.value = at;
    drawHand(f, h);
    drawSheet(f);
    if (history.replaceState) history.replaceState(null, "", "#" + at);
  }

  function row(list, label, value, cls) {
    const li = el("li", cls || null);
    li.append(el("span", "label", label), value instanceof Node ? value : el("span", "value", value));
    list.append(li);
  }

  function cardRow(names, trumps) {
    const span = el("span", "value cards-inline");
    if (!names.length) span.textContent = "—";
    names.forEach(function (c) { span.append(card(c, trumps, true)); });
    return span;
  }

  function drawHand(f, h) {
    handPanel.replaceChildren(el("h2", null, "Hand " + h.number));
    const facts = el("ul", "facts");
    row(facts, "dealer", "seat " + h.dealer);
    if (h.pitcher !== null && f.kind !== "deal" && f.kind !== "bid") {
      row(facts, "pitcher", "seat " + h.pitcher + ", " + h.contract_text);
    }
    if (f.trump) row(facts, "trump", SUITS[f.trump], "trump-row " + colour(f.trump));
    handPanel.append(facts);
    const ended = f.kind === "end" || f.kind === "over";
    if (h.exchange && f.trump) {
      const ex = el("ul", "facts exchange");
      h.exchange.draws.forEach(function (d, s) {
        row(ex, "seat " + s + " drew", cardRow(d, h.trumps));
        row(ex, "let go", cardRow(h.exchange.discards[s], h.trumps), "sub");
      });
      const more = el("details", "exchange");
      more.open = exchangeOpen;
      more.addEventListener("toggle", function () { exchangeOpen = more.open; });
      more.append(el("summary", null, "Exchange: draws and discards"), ex);
      handPanel.append(more);
    }
    if (ended && h.complete) {
      handPanel.append(el("h3", null, "Points"));
      if (h.thrown_in) {
        handPanel.append(el("p", "note", "Everybody passed: no points."));
        return;
      }
      const pts = el("ul", "facts points");
      h.awards.forEach(function (a) {
        const v = el("span", "value");
        if (a.card) v.append(card(a.card, h.trumps, true));
        v.append(el("span", "who", (a.seat !== null ? "seat " + a.seat + " · " : "") + sideName(a.side) +
          " +" + a.value));
        row(pts, a.point, v, "award s" + a.side);
      });
      handPanel.append(pts);
      const sum = el("ul", "facts");
      row(sum, "game points", h.game_points.join(" – "));
      row(sum, "points won", h.points_won.join(" – "));
      row(sum, "bid", h.made ? "made" : "set", h.made ? "made" : "set");
      row(sum, "score change", h.score_change.map(function (v) { return (v > 0 ? "+" : "") + v; }).join(" – "));
      row(sum, "scores", h.scores.join(" – "));
      handPanel.append(sum);
    }
  }

  function drawSheet(f) {
    sheetPanel.replaceChildren(el("h2", null, "Score sheet"));
    const t = el("table", "sheet");
    const head = el("tr");
    const short = G.sides.length > 3; // many sides: their seats as the column heads
    ["#", "pitcher", "bid", "trump"].concat(G.sides.map(function (seats, s) {
      return short ? (seats.length === 1 ? "s" + seats[0] : seats.join("+")) : sideName(s);
    }))
      .forEach(function (x) { head.append(el("th", null, x)); });
    t.append(head);
    for (let i = 0; i < f.sheet; i++) {
      const h = G.hands[i], tr = el("tr", i === f.h ? "current" : null);
      tr.dataset.hand = i;
      tr.append(el("td", null, h.number));
      if (h.thrown_in) {
        const td = el("td", "thrown", "thrown in");
        td.colSpan = 3;
        tr.append(td);
        h.scores_before.forEach(function (v) { tr.append(el("td", "num", v)); });
      } else {
        tr.append(el("td", null, "seat " + h.pitcher), el("td", h.made ? "made" : "set", h.contract +
          (h.made ? " ✓" : " ✗")), el("td", colour(h.trump), h.trump_symbol));
        h.scores.forEach(function (v, s) {
          const d = h.score_change[s];
          const td = el("td", "num", v);
          td.append(el("small", null, " (" + (d > 0 ? "+" : "") + d + ")"));
          tr.append(td);
        });
      }
      tr.addEventListener("click", function () { stop(); go(handEnd(i)); });
      t.append(tr);
    }
    if (!f.sheet) {
      const none = el("tr", "none"), td = el("td", "thrown", "no hand finished yet");
      td.colSpan = 4 + G.sides.length;
      none.append(td);
      t.append(none);
    }
    const scroll = el("div", "sheet-scroll");
    scroll.append(t);
    sheetPanel.append(scroll);
  }

  // ------------------------------------------------------------ moving through the frames
  function go(i) {
    at = Math.max(0, Math.min(G.frames.length - 1, i));
    draw();
  }

  function handStart(step) {
    const h = G.frames[at].h;
    if (step < 0) {
      const first = G.frames.findIndex(function (f) { return f.h === h; });
      if (first < at) return first;
      return G.frames.findIndex(function (f) { return f.h === Math.max(0, h - 1); });
    }
    const next = G.frames.findIndex(function (f) { return f.h === h + 1; });
    return next < 0 ? G.frames.length - 1 : next;
  }

  function handEnd(i) {
    for (let k = G.frames.length - 1; k >= 0; k--) if (G.frames[k].h === i && G.frames[k].kind !== "over") return k;
    return 0;
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    playButton.replaceChildren(icon("play"));
    playButton.classList.remove("on");
  }

  function toggle() {
    if (timer) { stop(); return; }
    if (at === G.frames.length - 1) go(0);
    playButton.replaceChildren(icon("pause"));
    playButton.classList.add("on");
    timer = setInterval(function () {
      if (at >= G.frames.length - 1) { stop(); return; }
      go(at + 1);
    }, 900 / speed);
  }

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = {
      ArrowRight: function () { stop(); go(at + 1); }, ArrowLeft: function () { stop(); go(at - 1); },
      ArrowDown: function () { stop(); go(handStart(1)); }, ArrowUp: function () { stop(); go(handStart(-1)); },
      PageDown: function () { stop(); go(handStart(1)); }, PageUp: function () { stop(); go(handStart(-1)); },
      Home: function () { stop(); go(0); }, End: function () { stop(); go(G.frames.length - 1); },
      " ": toggle,
    };
    if (keys[e.key] && e.target.tagName !== "INPUT") { e.preventDefault(); keys[e.key](); }
  });

  const start = parseInt((location.hash || "").slice(1), 10);
  go(isNaN(start) ? 0 : start);
})();
