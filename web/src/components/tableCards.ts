// On narrow screens styles.css shows each table row as a card, each cell under its column's name. The names come
// from the table's own headers, copied into data-label here, so tables keep plain markup and new columns get one.
export function labelTableCells(root: HTMLElement): () => void {
  const label = () => {
    for (const table of root.querySelectorAll('table.table')) {
      const names = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
      for (const row of table.querySelectorAll('tbody tr')) {
        [...row.children].forEach((cell, i) => {
          const name = names[i];
          if (name && cell.getAttribute('data-label') !== name) cell.setAttribute('data-label', name);
        });
      }
    }
  };
  label();
  // Attribute changes are not observed, so labelling never wakes the observer again.
  const observer = new MutationObserver(label);
  observer.observe(root, { childList: true, subtree: true });
  return () => observer.disconnect();
}
