<?php

/**
 * For a plugin that copies this folder instead of using Composer: one `require` of this file
 * makes every class of the `Licensing\` namespace load from src/.
 */

if (!defined('LICENSING_CLIENT_LOADER')) {
    define('LICENSING_CLIENT_LOADER', __DIR__);
    spl_autoload_register(static function (string $class): void {
        $prefix = 'Licensing\\';
        if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
            return;
        }
        $relative = substr($class, strlen($prefix));
        $file = __DIR__ . '/src/' . str_replace('\\', '/', $relative) . '.php';
        if (is_file($file)) {
            require $file;
        }
    });
}
