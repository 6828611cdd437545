<?php

namespace Licensing\Joomla;

use Licensing\Cache\Cache;

/**
 * A cache kept as one JSON text in the extension's own storage, such as one field of a plugin's
 * params (`#__extensions.params`): the plugin passes how to read that text and how to save it, so
 * nothing here needs Joomla. Saving the plugin's form in the back end drops the field; the next
 * request then checks the license again, which is harmless.
 */
final class ParamsCache implements Cache
{
    /** @var callable(): ?string */
    private $load;
    /** @var callable(string): void */
    private $save;
    /** @var array<string, string>|null read once, then kept with every write */
    private $entries = null;

    /**
     * @param callable(): ?string $load the kept JSON text (null or '' when there is none)
     * @param callable(string): void $save stores the new JSON text
     */
    public function __construct(callable $load, callable $save)
    {
        $this->load = $load;
        $this->save = $save;
    }

    public function get(string $key): ?string
    {
        $entries = $this->entries();
        return isset($entries[$key]) ? $entries[$key] : null;
    }

    public function set(string $key, string $value): void
    {
        $entries = $this->entries();
        $entries[$key] = $value;
        $json = json_encode($entries, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        if ($json === false) {
            throw new \RuntimeException('The cache entry "' . $key . '" is not valid UTF-8.');
        }
        ($this->save)($json);
        $this->entries = $entries;
    }

    /** @return array<string, string> */
    private function entries(): array
    {
        if ($this->entries === null) {
            $decoded = json_decode((string) ($this->load)(), true);
            $this->entries = is_array($decoded) ? array_filter($decoded, 'is_string') : [];
        }
        return $this->entries;
    }
}
