; Definitions in Kotlin. class_declaration is also an interface or an enum class,
; told by a keyword; those patterns come first. A companion object is no definition
; of its own: its functions are its class's methods.

(class_declaration "interface" name: (_) @name) @definition.interface

(class_declaration (modifiers (class_modifier "enum")) name: (_) @name) @definition.enum

(class_declaration name: (_) @name) @definition.class

(object_declaration name: (_) @name) @definition.class

(function_declaration name: (_) @name) @definition.function

(type_alias type: (_) @name) @definition.type

(source_file
  (property_declaration
    (modifiers (property_modifier "const"))
    (variable_declaration (identifier) @name)) @definition.constant)

(source_file
  (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
