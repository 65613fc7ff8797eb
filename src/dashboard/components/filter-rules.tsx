import { valueOf } from "./forms.ts";

/** A destination's filter rules as the API takes them: groups of rules, each group all or any of its rules. */
export interface FilterRules {
  enabled: boolean;
  groups: Array<{ logic: string; rules: Array<{ field: string; operator: string; value?: string | number }> }>;
}

const FIELDS = ["model", "provider", "session_id", "user_id", "api_key_name", "finish_reason", "input", "output", "total_cost", "total_tokens", "prompt_tokens", "completion_tokens"];
const OPERATORS = ["equals", "not_equals", "contains", "not_contains", "regex", "starts_with", "ends_with", "gt", "lt", "gte", "lte", "exists", "not_exists"];
const NUMERIC = new Set(["gt", "lt", "gte", "lte"]);

function Choice({ label, value, options, onChange }: { label: string; value: string; options: string[]; onChange: (value: string) => void }) {
  return (
    <select aria-label={label} value={value} onChange={(event) => onChange(valueOf(event))}>
      {options.map((option) => (
        <option key={option} value={option}>
          {option.replace(/_/g, " ")}
        </option>
      ))}
    </select>
  );
}

/** Edits filter rules in place: a generation is sent when any group matches. */
export function FilterRulesEditor({ rules, onChange }: { rules: FilterRules; onChange: (rules: FilterRules) => void }) {
  const setGroup = (index: number, group: FilterRules["groups"][number]) => onChange({ ...rules, groups: rules.groups.map((item, at) => (at === index ? group : item)) });
  return (
    <fieldset>
      <legend>Filters (a generation is sent when any group matches; no group sends every one)</legend>
      {rules.groups.map((group, g) => (
        <div class="filter-group" key={g} role="group" aria-label={`Filter group ${g + 1}`}>
          <Choice label={`Group ${g + 1} matches`} value={group.logic} options={["and", "or"]} onChange={(logic) => setGroup(g, { ...group, logic })} />
          {group.rules.map((rule, r) => {
            const name = `group ${g + 1} rule ${r + 1}`;
            const setRule = (change: Partial<typeof rule>) => setGroup(g, { ...group, rules: group.rules.map((item, at) => (at === r ? { ...item, ...change } : item)) });
            return (
              <div class="pattern-row" key={r}>
                <Choice label={`Field of ${name}`} value={rule.field} options={FIELDS} onChange={(field) => setRule({ field })} />
                <Choice label={`Operator of ${name}`} value={rule.operator} options={OPERATORS} onChange={(operator) => setRule({ operator })} />
                <input
                  aria-label={`Value of ${name}`}
                  value={rule.value === undefined ? "" : String(rule.value)}
                  onInput={(event) => setRule({ value: NUMERIC.has(rule.operator) && valueOf(event).trim() !== "" && Number.isFinite(Number(valueOf(event))) ? Number(valueOf(event)) : valueOf(event) })}
                />
                <button type="button" class="danger" aria-label={`Remove ${name}`} onClick={() => setGroup(g, { ...group, rules: group.rules.filter((_, at) => at !== r) })}>
                  Remove
                </button>
              </div>
            );
          })}
          <button type="button" onClick={() => setGroup(g, { ...group, rules: [...group.rules, { field: "model", operator: "equals", value: "" }] })}>
            Add a rule to group {g + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange({ ...rules, groups: [...rules.groups, { logic: "and", rules: [{ field: "model", operator: "equals", value: "" }] }] })}>
        Add a filter group
      </button>
    </fieldset>
  );
}

/** The rules to send: empty groups dropped, a value-less operator sent without its value; null when no group is left. */
export function rulesToSend(rules: FilterRules): FilterRules | null {
  const groups = rules.groups
    .filter((group) => group.rules.length > 0)
    .map((group) => ({ ...group, rules: group.rules.map((rule) => (rule.operator === "exists" || rule.operator === "not_exists" ? { field: rule.field, operator: rule.operator } : rule)) }));
  return groups.length > 0 ? { enabled: rules.enabled, groups } : null;
}
