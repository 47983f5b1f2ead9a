package v1alpha1

// Pricing is what the user pays for the datacenter's nodes and the writers, from which every
// result gets its cost per million operations. Prices are decimal strings in the currency's
// unit (e.g. "0.192"). Per node-hour prices the datacenter only; per core-hour and GiB-hour
// price the datacenter's and the writers' resource requests alike.
//
// +kubebuilder:validation:XValidation:rule="has(self.perNodeHour) != (has(self.perCoreHour) || has(self.perGiBHour))",message="pricing takes perNodeHour, or perCoreHour and perGiBHour, not both"
type Pricing struct {
	// perNodeHour is the price of one Cassandra node for an hour.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]{1,6})?$`
	PerNodeHour string `json:"perNodeHour,omitempty"`
	// perCoreHour is the price of one core of CPU requested for an hour.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]{1,6})?$`
	PerCoreHour string `json:"perCoreHour,omitempty"`
	// perGiBHour is the price of one GiB of memory requested for an hour.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]{1,6})?$`
	PerGiBHour string `json:"perGiBHour,omitempty"`
	// currency names the prices' currency, for the reader.
	// +optional
	// +kubebuilder:default=USD
	// +kubebuilder:validation:MaxLength=8
	Currency string `json:"currency,omitempty"`
}

// CostResults is what the measured window cost, from the prices and the resource requests.
type CostResults struct {
	// currency of every figure.
	// +required
	// +kubebuilder:validation:MaxLength=8
	Currency string `json:"currency"`
	// perMillionOperations is the datacenter's cost of a million operations at the throughput
	// measured: its price per hour over the operations per hour.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	PerMillionOperations string `json:"perMillionOperations,omitempty"`
	// datacenterPerHour is the datacenter's price per hour.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	DatacenterPerHour string `json:"datacenterPerHour,omitempty"`
	// writersPerMillionOperations is the writers' cost of a million operations, apart: the
	// client is not the system under test. Empty when the writers request nothing to price.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	WritersPerMillionOperations string `json:"writersPerMillionOperations,omitempty"`
	// writersPerHour is the writers' price per hour.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	WritersPerHour string `json:"writersPerHour,omitempty"`
	// note says what could not be priced and why.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Note string `json:"note,omitempty"`
	// pricedBy names where the prices came from: spec.pricing, or the manager's pricing
	// ConfigMap as namespace/name.
	// +optional
	// +kubebuilder:validation:MaxLength=320
	PricedBy string `json:"pricedBy,omitempty"`
}
