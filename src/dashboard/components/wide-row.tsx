import type { ComponentChildren } from "preact";

/**
 * A table row of one cell across every column: an opened row's form under it, or the note that a table
 * is empty. Renders nothing unless `when`.
 */
export function WideRow({ columns, when = true, children }: { columns: number; when?: boolean; children: ComponentChildren }) {
  return when ? (
    <tr>
      <td colSpan={columns}>{children}</td>
    </tr>
  ) : null;
}
