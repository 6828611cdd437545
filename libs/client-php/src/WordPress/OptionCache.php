<?php

namespace Licensing\WordPress;

use Licensing\Cache\Cache;

/**
 * The client's cache (the last verified validation for the offline grace, the latest time the
 * server vouched for) in one WordPress option of the site, not autoloaded: it is read only when
 * the license is checked. One option, so that uninstalling removes all of it at once.
 */
final class OptionCache implements Cache
{
    /** @var string */
    private $option;

    public function __construct(string $option)
    {
        $this->option = $option;
    }

    public function get(string $key): ?string
    {
        $values = $this->values();
        return isset($values[$key]) && is_string($values[$key]) ? $values[$key] : null;
    }

    public function set(string $key, string $value): void
    {
        $values = $this->values();
        $values[$key] = $value;
        if (get_option($this->option, null) === null) {
            add_option($this->option, $values, '', 'no');
            return;
        }
        update_option($this->option, $values, false);
    }

    /** Forgets everything kept. */
    public function clear(): void
    {
        delete_option($this->option);
    }

    /** @return array<string, mixed> */
    private function values(): array
    {
        $values = get_option($this->option, []);
        return is_array($values) ? $values : [];
    }
}
