// The console's styles: system fonts, colours with at least 4.5:1 contrast on their background.
export const CSS = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f3f4f6}
a{color:#1d4ed8}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px;z-index:9}
header{display:flex;gap:16px;align-items:center;flex-wrap:wrap;padding:8px 16px;background:#111827;color:#f9fafb}
header a{color:#bfdbfe}
nav{display:flex;gap:12px}
.search{display:flex;gap:6px;align-items:center;margin-left:auto}
.search input{width:300px}
.live{font-size:12px;padding:2px 8px;border-radius:10px;background:#065f46;color:#fff}
main{padding:12px 16px;max-width:1400px}
h1{font-size:20px;margin:8px 0 12px}
h2{font-size:16px;margin:0 0 8px}
.card{background:#fff;border:1px solid #d1d5db;border-radius:8px;padding:12px;margin-bottom:12px}
.grid2{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px}
.row{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin-bottom:8px}
form{margin:0 0 8px}
label{font-weight:600;margin-right:4px}
input,select,textarea{font:inherit;padding:4px 6px;border:1px solid #6b7280;border-radius:4px;background:#fff;color:#111827}
textarea{width:100%;display:block;margin:4px 0}
button{font:inherit;padding:4px 10px;border:1px solid #1e3a8a;border-radius:4px;background:#1d4ed8;color:#fff;cursor:pointer}
button:disabled{background:#6b7280;border-color:#4b5563}
table{width:100%;border-collapse:collapse;background:#fff;margin-bottom:12px;border:1px solid #d1d5db}
caption{text-align:left;font-weight:700;padding:6px 0}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e5e7eb;vertical-align:top}
th{background:#f9fafb}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
pre{white-space:pre-wrap;word-break:break-all;background:#f9fafb;padding:8px;border-radius:4px;font-size:12px}
.muted{color:#4b5563}
.ok{color:#065f46}.err{color:#b91c1c}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:12px;background:#e5e7eb;color:#111827}
.s-completed,.s-succeeded,.s-approved,.s-active{background:#d1fae5;color:#065f46}
.s-failed,.s-rejected,.s-abandoned,.s-expired,.s-canceled,.s-disabled{background:#fee2e2;color:#991b1b}
.s-pending,.s-standby,.s-awaiting_deposit,.s-funded,.s-liquidated,.s-in_review{background:#fef3c7;color:#92400e}
.fields{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:2px 16px;margin:0}
.fields div{display:flex;gap:8px}.fields dt{font-weight:600;min-width:190px}.fields dd{margin:0}
.timeline li{margin-bottom:6px}
.delivery{margin:4px 0}
.diagram{max-width:100%;height:auto}
.diagram .edge{stroke:#6b7280;stroke-width:1.5}
.diagram .edge.taken{stroke:#1d4ed8;stroke-width:3}
.diagram .node rect{fill:#fff;stroke:#6b7280}
.diagram .node text{font-size:12px;fill:#111827}
.diagram .node.visited rect{fill:#dbeafe;stroke:#1d4ed8}
.diagram .node.current rect{fill:#1d4ed8;stroke:#1e3a8a}
.diagram .node.current text{fill:#fff;font-weight:700}
`;
