import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/** One tab: its id, its label and its panel. */
export interface Tab {
  id: string;
  label: string;
  panel: () => ComponentChildren;
}

/**
 * Tabs as the ARIA pattern has them: only the selected tab is in the Tab order, the arrow keys, Home
 * and End move between tabs (and select them), and Tab goes on into the selected panel.
 */
export function Tabs({ label, tabs }: { label: string; tabs: Tab[] }) {
  const [selected, setSelected] = useState(tabs[0]!.id);
  const current = tabs.find((tab) => tab.id === selected) ?? tabs[0]!;
  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.indexOf(current);
    const target = ({ ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 } as Record<string, number>)[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const next = tabs[(target + tabs.length) % tabs.length]!;
    setSelected(next.id);
    document.getElementById(`tab-${next.id}`)?.focus();
  };
  return (
    <div class="tabs">
      <div role="tablist" aria-label={label} onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            key={tab.id}
            type="button"
            id={`tab-${tab.id}`}
            role="tab"
            aria-selected={tab === current}
            aria-controls={`panel-${tab.id}`}
            tabIndex={tab === current ? 0 : -1}
            onClick={() => setSelected(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${current.id}`} aria-labelledby={`tab-${current.id}`} tabIndex={0}>
        {current.panel()}
      </div>
    </div>
  );
}
