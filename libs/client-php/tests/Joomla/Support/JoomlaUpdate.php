<?php

namespace Licensing\Tests\Joomla\Support;

/**
 * Reads an extension update stream as Joomla 5's updater does when it installs an update
 * (joomla/joomla-cms libraries/src/Updater/Update.php, loadFromXml()): the same expat parser
 * callbacks, which keep the one update whose <targetplatform> matches the Joomla version (as the
 * regular expression `preg_match('/^' . version . '/', JVERSION)`), whose <php_minimum> the PHP
 * version meets and whose <tag> the minimum stability allows, the highest by version_compare();
 * then the download URL with the update site's extra query appended as com_installer's
 * UpdateModel::install() does, and as joomla/uri sends it.
 *
 * What Joomla takes from the database (the site's server type for <supported_databases>) is
 * passed in; the release-channel match of Joomla's own core updates is left out.
 */
final class JoomlaUpdate
{
    /** Updater::STABILITY_* */
    public const STABILITY = ['dev' => 0, 'alpha' => 1, 'beta' => 2, 'rc' => 3, 'stable' => 4];

    /** @var string JVERSION */
    private $joomlaVersion;
    /** @var string PHP_VERSION */
    private $phpVersion;
    /** @var int */
    private $minimumStability;
    /** @var array{0: string, 1: string} the site's database: type (mysql, mariadb, postgresql) and version */
    private $database;

    /** @var string[] */
    private $stack = ['base'];
    /** @var \stdClass|null */
    private $currentUpdate;
    /** @var \stdClass|null */
    private $latest;
    /** @var \stdClass|null the update kept when the stream ends, as Update copies it onto itself */
    private $chosen;

    public function __construct(string $joomlaVersion, string $phpVersion, string $minimumStability = 'stable', array $database = ['mysql', '8.0.36'])
    {
        $this->joomlaVersion = $joomlaVersion;
        $this->phpVersion = $phpVersion;
        $this->minimumStability = self::STABILITY[$minimumStability];
        $this->database = $database;
    }

    /**
     * The update Joomla would install from this stream, or null.
     *
     * @throws \RuntimeException where xml_parse() fails: Joomla then logs and installs nothing
     */
    public static function choose(string $xml, string $joomlaVersion, string $phpVersion, string $minimumStability = 'stable'): ?\stdClass
    {
        $reader = new self($joomlaVersion, $phpVersion, $minimumStability);
        $parser = xml_parser_create('');
        xml_set_object($parser, $reader);
        xml_set_element_handler($parser, 'startElement', 'endElement');
        xml_set_character_data_handler($parser, 'characterData');
        if (!xml_parse($parser, $xml, true)) {
            throw new \RuntimeException(sprintf(
                'XML error: %s at line %d',
                xml_error_string(xml_get_error_code($parser)),
                xml_get_current_line_number($parser)
            ));
        }
        xml_parser_free($parser);
        return $reader->chosen;
    }

    /**
     * UpdateModel::install(): trim(<downloadurl>), then the extra query (the <dlid> prefix, the
     * key, the suffix) after '?' when the URL has none, else after the literal '&amp;'.
     */
    public static function downloadUrl(\stdClass $update, string $extraQuery): string
    {
        $url = trim($update->downloadurl->_data);
        if ($extraQuery) {
            $url .= (strpos($url, '?') === false) ? '?' : '&amp;';
            $url .= $extraQuery;
        }
        return $url;
    }

    /** What joomla/uri (2.0.1 and later) puts on the wire: '&amp;' of the query read as '&'. */
    public static function requestUrl(string $url): string
    {
        $at = strpos($url, '?');
        if ($at === false) {
            return $url;
        }
        return substr($url, 0, $at + 1) . str_replace('&amp;', '&', substr($url, $at + 1));
    }

    /** @param array<string, string> $attrs */
    public function startElement($parser, string $name, array $attrs = []): void
    {
        $this->stack[] = $name;
        switch ($name) {
            case 'UPDATE':
                $this->currentUpdate = new \stdClass();
                break;
            case 'UPDATES':
                break;
            default:
                // Every element of an update, nested or not, is a field named after it.
                $name = strtolower($name);
                if (!isset($this->currentUpdate->$name)) {
                    $this->currentUpdate->$name = new \stdClass();
                }
                $this->currentUpdate->$name->_data = '';
                foreach ($attrs as $key => $data) {
                    $key = strtolower($key);
                    $this->currentUpdate->$name->$key = $data;
                }
        }
    }

    public function endElement($parser, string $name): void
    {
        array_pop($this->stack);
        if ($name === 'UPDATE' && $this->fits($this->currentUpdate)) {
            if (!isset($this->latest)
                || version_compare($this->currentUpdate->version->_data, $this->latest->version->_data, '>')) {
                $this->latest = $this->currentUpdate;
            }
        }
        if ($name === 'UPDATES') {
            $this->chosen = $this->latest;
            $this->latest = null;
            $this->currentUpdate = null;
        }
    }

    public function characterData($parser, string $data): void
    {
        $tag = strtolower($this->stack[count($this->stack) - 1]);
        if ($tag === 'tag') {
            // Only the last piece of text counts; an unknown tag is stable.
            $key = strtolower($data);
            $this->currentUpdate->stability = isset(self::STABILITY[$key]) ? self::STABILITY[$key] : self::STABILITY['stable'];
            return;
        }
        if (isset($this->currentUpdate->$tag)) {
            $this->currentUpdate->$tag->_data .= $data;
        }
    }

    /** Update::_endElement('UPDATE'): product, Joomla version, PHP, database and stability. */
    private function fits(\stdClass $update): bool
    {
        if (!isset($update->targetplatform->name) || $update->targetplatform->name !== 'joomla') {
            return false;
        }
        // A pattern PHP cannot compile (a '/' in it ends it early) matches nothing, silently.
        if (!@preg_match('/^' . $update->targetplatform->version . '/', $this->joomlaVersion)) {
            return false;
        }
        if (isset($update->php_minimum) && !version_compare($this->phpVersion, $update->php_minimum->_data, '>=')) {
            return false;
        }
        if (isset($update->supported_databases)) {
            $type = $this->database[0];
            if (!isset($update->supported_databases->$type)
                || !version_compare($this->database[1], $update->supported_databases->$type, '>=')) {
                return false;
            }
        }
        return !isset($update->stability) || $update->stability >= $this->minimumStability;
    }
}
