/** The syntax rules Kubernetes applies to label keys and values (and to other qualified names). */

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `value` is not a DNS-1123 subdomain (object names, key prefixes), or undefined when it is. */
export function dns1123SubdomainProblem(value: string): string | undefined {
  if (value.length > 253) return 'must be no more than 253 characters';
  if (!DNS1123_SUBDOMAIN.test(value)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Why `value` is not a DNS-1123 label (namespaces), or undefined when it is. */
export function dns1123LabelProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!DNS1123_LABEL.test(value)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Why `key` is not a qualified name (`[prefix/]name`), or undefined when it is. */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length > 2 || name === undefined) return 'a qualified name must have at most one "/"';
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix === '') return 'prefix part must be non-empty';
    const problem = dns1123SubdomainProblem(prefix);
    if (problem) return `prefix part ${problem}`;
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!NAME_PART.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Why `value` is not a valid label value, or undefined when it is (the empty string is valid). */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!NAME_PART.test(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}
