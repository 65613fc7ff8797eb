/** One ranked item: its name and value. */
export interface Ranked {
  name: string;
  value: number;
  detail: string;
}

/** A ranked list (top models, top providers) as a table with a proportional SVG bar per row. */
export function BarList({ caption, items, valueLabel, format }: { caption: string; items: Ranked[]; valueLabel: string; format: (value: number) => string }) {
  const peak = Math.max(0, ...items.map((item) => item.value));
  return (
    <table class="bar-list">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">{valueLabel}</th>
          <th scope="col" class="bar-cell">
            <span class="visually-hidden">Share</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.length === 0 ? (
          <tr>
            <td colSpan={3}>No requests in this period</td>
          </tr>
        ) : (
          items.map((item) => (
            <tr key={item.name}>
              <th scope="row">{item.name}</th>
              <td title={item.detail}>{format(item.value)}</td>
              <td class="bar-cell" aria-hidden="true">
                <svg viewBox="0 0 100 8" preserveAspectRatio="none">
                  <rect class="bar" x={0} y={0} height={8} width={peak === 0 ? 0 : (item.value / peak) * 100} />
                </svg>
              </td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
