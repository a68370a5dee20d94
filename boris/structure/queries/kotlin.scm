; Definitions in Kotlin. class_declaration is also an interface or an enum class,
; told by a keyword; those patterns come first. A companion object is an object of
; its class, named by its keyword (companion) when it has no name of its own: a
; search by name finds what the source spells.

(class_declaration "interface" name: (_) @name) @definition.interface

(class_declaration (modifiers (class_modifier "enum")) name: (_) @name) @definition.enum

(class_declaration name: (_) @name) @definition.class

(object_declaration name: (_) @name) @definition.class

(companion_object name: (_) @name) @definition.class

(companion_object "companion" @name !name) @definition.class

; An annotation class after an annotation of its own (@Retention(…) on the line
; before), which the grammar reads as an expression: annotation class Required.
(annotated_expression
  (infix_expression
    . (identifier) @_annotation
    . (identifier) @_class
    . (identifier) @name
    (#eq? @_annotation "annotation")
    (#eq? @_class "class"))) @definition.class

(function_declaration name: (_) @name) @definition.function

(type_alias type: (_) @name) @definition.type

(source_file
  (property_declaration
    (modifiers (property_modifier "const"))
    (variable_declaration (identifier) @name)) @definition.constant)

(source_file
  (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
