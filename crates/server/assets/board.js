// Boards for the pages: our own SVG board for any size (with click handling for the editor),
// and FEN helpers shared by the position and strategy pages.

export const GLYPHS = { K: "\u2654", Q: "\u2655", R: "\u2656", B: "\u2657", N: "\u2658", P: "\u2659",
                        k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };

export function fileName(i) { return String.fromCharCode(97 + i); }

/// The placement field as rows of cells, the top rank first (null: an empty square).
export function parsePlacement(fen) {
  return fen.split(" ")[0].split("/").map(row => {
    const cells = [];
    let digits = "";
    const flush = () => { for (let i = 0; i < Number(digits || 0); i++) cells.push(null); digits = ""; };
    for (const c of row) {
      if (c >= "0" && c <= "9") { digits += c; continue; }
      flush();
      cells.push(c);
    }
    flush();
    return cells;
  });
}

/// The placement field of rows of cells.
export function placementOf(rows) {
  return rows.map(cells => {
    let text = "", run = 0;
    for (const c of cells) {
      if (c === null) { run++; continue; }
      if (run) { text += run; run = 0; }
      text += c;
    }
    return run ? text + run : text;
  }).join("/");
}

/// Draws `fen`'s men on an SVG board of its size into `holder`; `highlight` lists squares to
/// mark; `onSquare(name)` is called when a square is clicked.
export function drawSvgBoard(holder, fen, { flipped = false, highlight = [], onSquare = null } = {}) {
  const rows = parsePlacement(fen);
  const ranks = rows.length, files = rows[0].length, size = 60;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${files * size + 20} ${ranks * size + 20}`);
  svg.setAttribute("data-files", files);
  svg.setAttribute("data-ranks", ranks);
  for (let r = 0; r < ranks; r++) {
    for (let f = 0; f < files; f++) {
      const file = flipped ? files - 1 - f : f, row = flipped ? ranks - 1 - r : r;
      const rank = ranks - 1 - row;
      const name = fileName(file) + (rank + 1);
      const rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", 20 + f * size); rect.setAttribute("y", r * size);
      rect.setAttribute("width", size); rect.setAttribute("height", size);
      const light = (file + rank) % 2 === 1;
      rect.setAttribute("fill", highlight.includes(name) ? "#cdd26a" : light ? "#eeeed2" : "#769656");
      rect.setAttribute("data-square", name);
      svg.appendChild(rect);
      const man = rows[row][file];
      if (man) {
        const t = document.createElementNS(ns, "text");
        t.setAttribute("x", 20 + f * size + size / 2); t.setAttribute("y", r * size + size * 0.78);
        t.setAttribute("text-anchor", "middle"); t.setAttribute("font-size", size * 0.8);
        t.setAttribute("class", "man");
        t.setAttribute("data-square", name);
        t.textContent = GLYPHS[man] || "?";
        svg.appendChild(t);
      }
    }
  }
  for (let i = 0; i < files; i++) {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", 20 + i * size + size / 2); t.setAttribute("y", ranks * size + 15);
    t.setAttribute("text-anchor", "middle"); t.setAttribute("font-size", 12);
    t.textContent = fileName(flipped ? files - 1 - i : i);
    svg.appendChild(t);
  }
  for (let i = 0; i < ranks; i++) {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", 8); t.setAttribute("y", i * size + size / 2 + 4);
    t.setAttribute("text-anchor", "middle"); t.setAttribute("font-size", 12);
    t.textContent = flipped ? i + 1 : ranks - i;
    svg.appendChild(t);
  }
  if (onSquare) {
    svg.addEventListener("click", e => {
      const name = e.target.getAttribute && e.target.getAttribute("data-square");
      if (name) onSquare(name);
    });
  }
  // Leave chessground's classes behind if it drew here before; keep the holder's own.
  holder.classList.remove("cg-holder", "cg-wrap", "orientation-white", "orientation-black", "manipulable");
  holder.replaceChildren(svg);
}

/// Fetches JSON; a non-2xx answer throws its `error` message.
export async function getJson(url) {
  const response = await fetch(url);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

/// The positions along a best line from /api/line (its FEN first), each found by probing the
/// one before it for the move's resulting FEN.
export async function lineFens(line) {
  const fens = [line.fen];
  let probe = line;
  for (const uci of line.line) {
    const m = probe.moves.find(x => x.uci === uci);
    fens.push(m.fen);
    probe = await getJson("/api/probe?fen=" + encodeURIComponent(m.fen));
  }
  return fens;
}
